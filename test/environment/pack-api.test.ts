import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import {
  isToolRejection,
  servesProfile,
  ToolRejection,
  type DomainDefinition,
  type DomainPack,
  type ToolDefinition,
} from '../../environment/domain.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import { DomainRegistry } from '../../environment/registry.js';
import { defaultRegistry } from '../../workers/registry.js';
import { checkTaskAgainstDomain } from '../../environment/task-validation.js';
import { verifyTasks } from '../../environment/verify.js';
import { loadConfig } from '../../workers/config.js';
import { fromRoot } from '../../core/paths.js';
import { fixtureHelpdeskDomain } from '../fixtures/fixture-helpdesk-domain.js';
import { fixtureEnvironment, fixtureModule, fixtureTask, uniqueEpisodeId } from './harness.js';

/** A pack's own copy of the rejection class: same brand, another class, as when a pack bundles its own copy of the API. */
const BRAND: unique symbol = Symbol.for('finalstate.ToolRejection') as never;
class CopiedToolRejection extends Error {
  readonly [BRAND] = true;
}
/** A look-alike without the brand: what the executor must treat as a fault. */
class UnbrandedRejection extends Error {}

/** The fixture pack with cancel_order's rejections rethrown as `Rejection`. */
function rethrowing(name: string, Rejection: new (message: string) => Error): DomainDefinition {
  const tools = fixtureHelpdeskDomain.tools.map((tool): ToolDefinition => {
    if (tool.name !== 'cancel_order') return tool;
    return {
      ...tool,
      async handler(ctx, args) {
        try {
          return await tool.handler(ctx, args);
        } catch (err) {
          throw err instanceof ToolRejection ? new Rejection(err.message) : err;
        }
      },
    };
  });
  return { ...fixtureHelpdeskDomain, name, tools };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-pack-api-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the domain-pack API', () => {
  const env = fixtureEnvironment({ sparesPerTemplate: 0 });
  const copied = rethrowing('fixture_copied_rejection', CopiedToolRejection);
  const unbranded = rethrowing('fixture_unbranded_rejection', UnbrandedRejection);
  env.registry.register(copied);
  env.registry.register(unbranded);
  after(() => env.close());

  it('recognises a rejection by its brand, whichever class made it', async () => {
    assert.ok(isToolRejection(new ToolRejection('no')) && isToolRejection(new CopiedToolRejection('no')));
    assert.ok(
      !isToolRejection(new UnbrandedRejection('no')) && !isToolRejection(new Error('no')) && !isToolRejection(null),
    );
    const task = { ...fixtureTask('cancel-O-1'), domain: copied.name };
    const episode = await env.backend.provision(uniqueEpisodeId('copied'), task);
    const tools = await connectEpisodeTools(env.backend, episode);
    try {
      assert.equal(
        (await tools.client.callTool('cancel_order', { order_id: 'O-1', reason: 'customer_request' })).isError,
        false,
      );
      const again = await tools.client.callTool('cancel_order', { order_id: 'O-1', reason: 'customer_request' });
      assert.equal(again.isError, true);
      assert.equal(again.fault, undefined, 'a copied rejection is no fault');
      assert.match(again.content, /order O-1 is cancelled and cannot be cancelled/);
      assert.equal((await tools.executor.lookup(1))?.isError, true, 'the rejected call is recorded like any rejection');
    } finally {
      await tools.close();
      await env.backend.teardown(episode, { wait: true });
    }
  });

  it('verify reports a tool fault as a problem instead of counting it as a refused duplicate', async () => {
    const task = { ...fixtureTask('cancel-O-1'), domain: unbranded.name };
    const report = await verifyTasks(env.backend, env.expected, [task], { concurrency: 1 });
    const faults = report.problems.filter((p) => /tool fault/.test(p.message));
    assert.ok(faults.length >= 1, JSON.stringify(report.problems));
    assert.match(faults[0]!.message, /call \d+ \(cancel_order\) failed with a tool fault instead of a rejection/);
    assert.equal(faults[0]!.agent, 'duplicate_write');
  });
});

describe('optional mini profile', () => {
  it('a pack may leave mini out; it then serves full only; half a mini profile is refused', () => {
    const { mini: _p, ...fullPolicy } = fixtureHelpdeskDomain.policy;
    const { mini: _t, ...fullTools } = fixtureHelpdeskDomain.profileTools;
    const fullOnly: DomainPack = {
      ...fixtureHelpdeskDomain,
      name: 'fixture_full_only',
      policy: fullPolicy,
      profileTools: fullTools,
    };
    const registry = new DomainRegistry([fullOnly]);
    const domain = registry.get('fixture_full_only');
    assert.ok(servesProfile(domain, 'full') && !servesProfile(domain, 'mini'));
    assert.deepEqual(domain.profileTools.mini, []);
    const miniTask = {
      ...fixtureTask('cancel-O-1', 'mini'),
      domain: 'fixture_full_only',
      init: { upsert: {}, delete: {} },
    };
    assert.deepEqual(
      checkTaskAgainstDomain(miniTask, domain, {})
        .filter((i) => i.path === 'profile')
        .map((i) => i.message),
      ['domain fixture_full_only does not serve the mini profile (it declares no policy.mini and profileTools.mini)'],
    );
    const half: DomainPack = { ...fullOnly, name: 'fixture_half_mini', policy: { ...fullPolicy, mini: 'tiny policy' } };
    assert.throws(() => new DomainRegistry([half]), /policy\.mini and profileTools\.mini go together/);
  });
});

describe('packs named in the configuration file', () => {
  it('loads paths relative to the config file and packages from node_modules beside it; the env list adds more', async () => {
    const dir = path.join(tmp, 'config');
    fs.mkdirSync(path.join(dir, 'packs'), { recursive: true });
    const fixtureUrl = pathToFileURL(fixtureModule).href;
    fs.writeFileSync(
      path.join(dir, 'packs', 'by-path.mjs'),
      `export { domains } from ${JSON.stringify(fixtureUrl)};\n`,
    );
    const pkg = path.join(dir, 'node_modules', '@acme', 'claims-pack');
    fs.mkdirSync(path.join(pkg, 'lib'), { recursive: true });
    fs.writeFileSync(
      path.join(pkg, 'package.json'),
      JSON.stringify({
        name: '@acme/claims-pack',
        type: 'module',
        exports: { '.': { types: './lib/index.d.ts', import: './lib/index.js' } },
      }),
    );
    fs.writeFileSync(
      path.join(pkg, 'lib', 'index.js'),
      `import { fixtureHelpdeskDomain } from ${JSON.stringify(fixtureUrl)};\nexport default { ...fixtureHelpdeskDomain, name: 'acme_claims' };\n`,
    );
    const file = path.join(dir, 'finalstate.config.json');
    fs.writeFileSync(file, JSON.stringify({ domains: ['./packs/by-path.mjs', '@acme/claims-pack'] }));
    const config = loadConfig({ file, env: {} });
    const registry = await defaultRegistry({ config, env: {} });
    assert.ok(registry.has('fixture_helpdesk') && registry.has('acme_claims') && registry.has('retail'));
    assert.ok(registry.isBuiltIn('retail') && !registry.isBuiltIn('acme_claims'));
    const both = await defaultRegistry({ config, env: { FINALSTATE_DOMAIN_MODULES: fixtureModule } });
    assert.ok(both.has('fixture_helpdesk'), 'the same module named twice is loaded once');
    assert.throws(
      () => registry.get('atlantis'),
      /unknown domain "atlantis".*register the pack that defines it: name its built module .* in "domains" of the configuration file .* or in FINALSTATE_DOMAIN_MODULES/s,
    );
  });

  it('says what is wrong with a pack entry: a missing package, an unbuilt file, a module without packs', async () => {
    const dir = path.join(tmp, 'bad');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'empty.mjs'), 'export const nothing = 1;\n');
    const attempt = (domains: string[]) => defaultRegistry({ config: { domains, configDir: dir }, env: {} });
    await assert.rejects(
      attempt(['no-such-pack']),
      /config domains: cannot find package "no-such-pack" in node_modules from/,
    );
    await assert.rejects(
      attempt(['./dist/index.js']),
      /resolves to .*dist\/index\.js, which does not exist \(is the pack built\?\)/,
    );
    await assert.rejects(attempt(['./empty.mjs']), /does not export `domains: DomainPack\[\]`/);
  });
});

function cli(args: string[], modules: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [fromRoot('bin', 'finalstate.js'), ...args],
      { env: { ...process.env, FINALSTATE_DOMAIN_MODULES: modules }, cwd: tmp },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('tasks generate on external packs', () => {
  const fixtureUrl = JSON.stringify(pathToFileURL(fixtureModule).href);
  const writeModule = (name: string, body: string) => {
    const file = path.join(tmp, `${name}.mjs`);
    fs.writeFileSync(file, `import { fixtureHelpdeskDomain as base } from ${fixtureUrl};\n${body}\n`);
    return file;
  };

  it('needs --dir, and writes nothing when the generator throws partway (one line, no stack trace)', async () => {
    const module = writeModule(
      'throws-on-eval',
      "export const domains = [{ ...base, name: 'fixture_throws', generateTasks: (o) => { if (o.split === 'eval') throw new Error('no eval fixtures'); return base.generateTasks(o).map((t) => ({ ...t, domain: 'fixture_throws' })); } }];",
    );
    const noDir = await cli(['tasks', 'generate', '--domain', 'fixture_throws'], module);
    assert.equal(noDir.code, 2);
    assert.match(noDir.stderr, /--dir is required for the external pack fixture_throws/);
    const out = path.join(tmp, 'out-throws');
    const result = await cli(
      ['tasks', 'generate', '--domain', 'fixture_throws', '--dir', out, '--profile', 'full'],
      module,
    );
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr.trim(),
      'finalstate tasks generate: fixture_throws eval/full: the generator failed: no eval fixtures; nothing was written',
    );
    assert.ok(!fs.existsSync(out) || fs.readdirSync(out).length === 0, 'no partial set');
  });

  it('refuses to write a set that breaks an invariant, naming the tasks', async () => {
    const module = writeModule(
      'breaks-invariant',
      "export const domains = [{ ...base, name: 'fixture_invariant', invariants: [{ name: 'no-cancel-of-O-1', description: 'O-1 is never cancelled', check: (t) => (t.golden.some((c) => c.tool === 'cancel_order' && c.arguments.order_id === 'O-1') ? 'cancels O-1' : undefined) }], generateTasks: (o) => base.generateTasks(o).map((t) => ({ ...t, domain: 'fixture_invariant' })) }];",
    );
    const out = path.join(tmp, 'out-invariant');
    const result = await cli(['tasks', 'generate', '--dir', out, '--split', 'train', '--profile', 'full'], module);
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /fixture_invariant train\/full: 1 violation\(s\) of the invariants; nothing was written\n {2}FAIL no-cancel-of-O-1: 1 violation\(s\)\n {9}1 x cancels O-1 \(e\.g\. \S+\)/,
    );
    assert.ok(!fs.existsSync(out));
    const check = await cli(['tasks', 'check', '--count', '50', '--json'], module);
    assert.equal(check.code, 1);
    assert.ok((JSON.parse(check.stdout) as { violations: number }[])[0]!.violations > 0);
  });
});

describe('invariants a pack owns', () => {
  const fixtureUrl = JSON.stringify(pathToFileURL(fixtureModule).href);
  const apiUrl = JSON.stringify(pathToFileURL(fromRoot('dist', 'domains', 'api.js')).href);
  const writeModule = (name: string, body: string) => {
    const file = path.join(tmp, `${name}.mjs`);
    fs.writeFileSync(
      file,
      `import { fixtureHelpdeskDomain as base } from ${fixtureUrl};\nimport * as api from ${apiUrl};\n${body}\n`,
    );
    return file;
  };
  // Every task that writes is tagged `refuse` too: the business records refusals (here by writing).
  const recording = (name: string, extra: string) =>
    `export const domains = [{ ...base, name: '${name}', ${extra} generateTasks: (o) => base.generateTasks(o).map((t) => ({ ...t, domain: '${name}', tags: t.tags.includes('read-only') ? t.tags : [...t.tags, 'refuse'] })) }];`;

  it('tasks check prints one grouped line per cause with its count, what the rule protects and how to turn it off', async () => {
    const module = writeModule('records-refusals', recording('fixture_records', ''));
    const check = await cli(['tasks', 'check', '--count', '50'], module);
    assert.equal(check.code, 1, check.stderr);
    const violations = Number(/(\d+) violation\(s\)$/m.exec(check.stdout)![1]);
    assert.ok(violations >= 4, check.stdout);
    assert.match(
      check.stdout,
      new RegExp(
        `FAIL refusals-are-read-only \\(built-in\\), concerned \\d+ task\\(s\\): ${violations} violation\\(s\\)\\n {9}${violations} x tagged refuse but its golden calls write \\(e\\.g\\. [^)]+\\)\\n {9}it catches .+\\n {9}turn it off \\(turnOffInvariants, with the reason\\) only when .+refusalsWriteOnly.+docs/domain-packs\\.md#invariants-and-tasks-check`,
      ),
    );
    assert.ok(check.stdout.split('\n').length < 12, `one line per cause, not per task:\n${check.stdout}`);
  });

  it('a pack turns a built-in invariant off with a reason and states its own rule in its place', async () => {
    const module = writeModule(
      'records-refusals-owned',
      recording(
        'fixture_owned',
        "turnOffInvariants: { 'refusals-are-read-only': 'a refusal is recorded by a write' }, invariants: [api.refusalsWriteOnly(base.tools, ['cancel_order', 'open_ticket', 'update_email'])],",
      ),
    );
    const check = await cli(['tasks', 'check', '--count', '50'], module);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /ok {3}refusals-write-only-records, concerned \d+ task\(s\): holds/);
    assert.match(
      check.stdout,
      /off {2}refusals-are-read-only \(built-in\), turned off by the pack: a refusal is recorded by a write/,
    );
    const narrower = writeModule(
      'records-refusals-narrow',
      recording(
        'fixture_narrow',
        "turnOffInvariants: { 'refusals-are-read-only': 'tickets record refusals' }, invariants: [api.refusalsWriteOnly(base.tools, ['open_ticket'])],",
      ),
    );
    const caught = await cli(['tasks', 'check', '--count', '50'], narrower);
    assert.equal(caught.code, 1);
    assert.match(
      caught.stdout,
      /FAIL refusals-write-only-records.*\n {9}\d+ x a refusal that writes with cancel_order/,
    );
  });

  it('refuses a pack that turns off an unknown invariant or gives no reason', () => {
    const registry = new DomainRegistry();
    assert.throws(
      () =>
        registry.register({
          ...fixtureHelpdeskDomain,
          name: 'fixture_typo',
          turnOffInvariants: { 'refusal-read-only': 'x' },
        }),
      /turnOffInvariants names "refusal-read-only", which is no built-in invariant \(refusals-are-read-only\)/,
    );
    assert.throws(
      () =>
        registry.register({
          ...fixtureHelpdeskDomain,
          name: 'fixture_noreason',
          turnOffInvariants: { 'refusals-are-read-only': ' ' },
        }),
      /turnOffInvariants\.refusals-are-read-only needs a reason/,
    );
  });
});

describe('errors that say what to do', () => {
  it('a profile without task types is one line naming the profile and the fix; check --profile takes one profile', async () => {
    const file = path.join(tmp, 'no-mini-types.mjs');
    fs.writeFileSync(
      file,
      `import { fixtureHelpdeskDomain as base } from ${JSON.stringify(pathToFileURL(fixtureModule).href)};
import { generateFromScenarios } from ${JSON.stringify(pathToFileURL(fromRoot('dist', 'domains', 'api.js')).href)};
const scenarios = [{ type: 'only_full', profiles: ['full'], build: () => { throw new Error('not reached'); } }];
export const domains = [{ ...base, name: 'fixture_nomini', generateTasks: (o) => generateFromScenarios({ domain: 'fixture_nomini', scenarios, tools: base.tools, profileTools: base.profileTools, clock: () => new Date(0) }, o) }];
`,
    );
    const check = await cli(['tasks', 'check', '--profile', 'mini', '--count', '5'], file);
    assert.equal(check.code, 2);
    assert.equal(
      check.stderr.trim(),
      "finalstate tasks check: fixture_nomini train/mini: the generator failed: fixture_nomini: no task type serves profile mini; add 'mini' to the profiles of a scenario, or drop policy.mini and profileTools.mini to serve full only",
    );
    const fullOnly = path.join(tmp, 'full-only.mjs');
    fs.writeFileSync(
      fullOnly,
      `import { fixtureHelpdeskDomain as base } from ${JSON.stringify(pathToFileURL(fixtureModule).href)};
export const domains = [{ ...base, name: 'fixture_fullonly', policy: { full: base.policy.full }, profileTools: { full: base.profileTools.full } }];
`,
    );
    const notServed = await cli(['tasks', 'check', '--domain', 'fixture_fullonly', '--profile', 'mini'], fullOnly);
    assert.equal(notServed.code, 2);
    assert.match(
      notServed.stderr,
      /fixture_fullonly does not serve the mini profile \(it declares no policy\.mini and profileTools\.mini\)/,
    );
  });

  it('a pack importing finalstate internals is told what to import from finalstate/domain and where the table is', async () => {
    const dir = path.join(tmp, 'old-pack');
    fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
    fs.symlinkSync(fromRoot(), path.join(dir, 'node_modules', 'finalstate'), 'dir');
    fs.writeFileSync(
      path.join(dir, 'index.mjs'),
      "import { ToolRejection } from 'finalstate/dist/environment/domain.js';\nexport const domains = [];\n",
    );
    await assert.rejects(
      defaultRegistry({ config: { domains: ['./index.mjs'], configDir: dir }, env: {} }),
      (err: Error) => {
        assert.match(err.message, /ERR_PACKAGE_PATH_NOT_EXPORTED|is not defined by "exports"/);
        assert.match(
          err.message,
          /finalstate\/dist\/environment\/domain\.js is internal: a pack imports only the public API finalstate\/domain\. Instead: import \{ [^}]*ToolRejection[^}]* \} from 'finalstate\/domain'\. Old imports and their public names: docs\/domain-packs\.md#migrating-from-internal-imports/,
        );
        return true;
      },
    );
  });
});
