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
import { defaultRegistry } from '../../wiring/registry.js';
import { checkTaskAgainstDomain } from '../../environment/task-validation.js';
import { verifyTasks } from '../../environment/verify.js';
import { loadConfig } from '../../infra/config.js';
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
      /unknown domain "atlantis".*register an external pack with `"domains"/s,
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
      /fixture_invariant train\/full: 1 task\(s\) break an invariant; nothing was written\n {2}\S+cancel-O-1: no-cancel-of-O-1: cancels O-1/,
    );
    assert.ok(!fs.existsSync(out));
    const check = await cli(['tasks', 'check', '--count', '50', '--json'], module);
    assert.equal(check.code, 1);
    assert.ok((JSON.parse(check.stdout) as { violations: number }[])[0]!.violations > 0);
  });
});
