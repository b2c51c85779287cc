import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../workers/config.js';
import type { LoadedConfig } from '../../schemas/config.js';
import { UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { EnvironmentBackend } from '../../environment/backend.js';
import { ExpectedStates } from '../../environment/expected-state.js';
import { createEpisodeMcpServer } from '../../environment/mcp-server.js';
import { newBearerToken, serveHttp, writeTokenFile } from '../../environment/mcp-http.js';
import { serveStdio } from '../../environment/mcp-serve.js';
import { sweepLeakedEpisodes } from '../../environment/janitor.js';
import { servesProfile, type DomainDefinition } from '../../environment/domain.js';
import {
  checkedTaskSet,
  describeInvariantResults,
  sampleInvariants,
  servedProfiles,
} from '../../environment/invariants.js';
import { type DomainRegistry } from '../../environment/registry.js';
import { defaultRegistry } from '../../workers/registry.js';
import { builtInTaskDirs } from '../../domains/index.js';
import { readTaskSets, writeTaskSet, type LoadedTaskSet } from '../../environment/task-set.js';
import { importThinkingBox } from '../../environment/thinkingbox/import.js';
import { thinkingBoxDeviations } from '../../environment/thinkingbox/deviations.js';
import { verifyThinkingBoxTasks } from '../../runtime/episode/environments/thinkingbox-verify.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { validateTaskSetFile } from '../../environment/task-validation.js';
import { EpisodeToolExecutor } from '../../environment/tool-executor.js';
import { verifyTasks } from '../../environment/verify.js';
import { Profile, Split, type Task, type TaskInput } from '../../schemas/task.js';
import { parse, printJson, type Command } from '../command.js';
import { importOpenEnvSet, importOpenEnvUsage } from '../tasks/import-openenv.js';
import { httpGuardFlags, httpServeOptions, type HttpGuardFlags } from '../http-serve-options.js';

const usage = `finalstate tasks <subcommand> [--json]

  list [--domain D] [--split S] [--profile P]     every task of the task sets in --dir (default: every
                                                  built-in pack's sets, tasks/ and its pack folders)
  show ID                                         one task in full
  validate FILE                                   check a task-set file: format, manifest, domain tables/columns/tools,
                                                  argument types, golden calls replayed on a real backend
  verify [--domain D] [--split S] [--profile P] [--concurrency N]
                                                  oracle, no-op and mutated oracles on real backends through MCP
                                                  (about 5 episodes per task: minutes for the default 300 per set)
  generate [--domain D] [--split S] [--profile P] [--count N] [--seed N]
                                                  write <dir>/<domain>-<split>-<profile>.jsonl + manifest from the
                                                  domain's seeded generator, N tasks per set (default 300; use
                                                  --count 8 while iterating on a pack), atomically; profiles a pack
                                                  does not serve are skipped; --dir is required for external packs
  check [--domain D] [--profile P] [--count N] [--seed N]
                                                  generate N tasks (default 2000) per seed (N, N+1), split and
                                                  served profile (or P) and check the built-in invariants the pack
                                                  keeps and its own on every one (in memory, seconds)
  serve-mcp --task ID [--transport stdio|http] [--port P] [--episode ID] [--keep]
                                                  provision an episode for the task and serve its tools over MCP;
                                                  http serves 127.0.0.1 only and takes:
     [--token-file F]                             where the bearer token is written (mode 0600; default
                                                  <dataDir>/mcp/<episode>.token); FINALSTATE_MCP_TOKEN gives one
     [--allowed-host H]... [--allowed-origin O]...
                                                  Host/Origin values accepted besides the server's own address
     [--max-sessions N] [--session-idle-seconds S]
                                                  sessions open at once (default 8; more get 503) and idle
                                                  seconds before one is closed (default 300)
  janitor [--ttl-minutes M]                       drop leaked episode databases older than M minutes (default 60)
  import-thinkingbox [--data DIR] [--tests PATH]... [--test-list FILE] [--out FILE] [--split S] [--keep-sources]
                                                  read ThinkingBox test cases (default: DIR/test_case) and scenarios
                                                  of DIR (default: thinkingbox-data/dataset of THINKINGBOX_HOME) with
                                                  ThinkingBox's hydrator into a task set (default --out
                                                  <dataDir>/thinkingbox/thinkingbox-<split>.jsonl, --split train);
                                                  scenarios' sources are left out (no Typesense) unless --keep-sources
${importOpenEnvUsage}

  --dir DIR   task-set directory (default: tasks/ in the project)
  Without --domain, generate and check cover the external packs when any is registered, else the built-in ones.
  External domain packs: "domains": [...] in finalstate.config.json, or FINALSTATE_DOMAIN_MODULES=path/to/module.js[,...]
  (each module exports \`domains\`); see docs/domain-packs.md.`;

function filterTasks(tasks: Task[], values: { domain?: string; split?: string; profile?: string }): Task[] {
  if (values.split !== undefined && !Split.safeParse(values.split).success)
    throw new UserError(`finalstate tasks: --split must be train or eval, got ${values.split}`);
  if (values.profile !== undefined && !Profile.safeParse(values.profile).success)
    throw new UserError(`finalstate tasks: --profile must be full or mini, got ${values.profile}`);
  return tasks.filter(
    (t) =>
      (!values.domain || t.domain === values.domain) &&
      (!values.split || t.split === values.split) &&
      (!values.profile || t.profile === values.profile),
  );
}

async function environment(config: LoadedConfig = loadConfig()) {
  const registry = await defaultRegistry({ config });
  const backend = new EnvironmentBackend(config, registry);
  return { config, registry, backend, expected: new ExpectedStates(backend) };
}

function integerFlag(sub: string, name: string, raw: string, min = Number.MIN_SAFE_INTEGER): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new UserError(
      `finalstate tasks ${sub}: --${name} must be ${min === 1 ? 'a positive integer' : 'an integer'}, got ${raw}`,
    );
  return n;
}

/** --domain, or the external packs when any is registered (someone developing a pack), else the built-in ones. */
function selectedDomains(registry: DomainRegistry, domain: string | undefined): DomainDefinition[] {
  if (domain) return [registry.get(domain)];
  const external = registry.all().filter((d) => !registry.isBuiltIn(d.name));
  return external.length ? external : registry.all();
}

/**
 * Generate every selected set in memory, check the pack's invariants, then write each set atomically: a generator
 * that throws or breaks an invariant leaves no file behind.
 */
async function generate(values: {
  dir?: string;
  domain?: string;
  split?: string;
  profile?: string;
  count?: string;
  seed?: string;
  json?: boolean;
}): Promise<number> {
  const registry = await defaultRegistry();
  const domains = selectedDomains(registry, values.domain);
  const external = domains.filter((d) => !registry.isBuiltIn(d.name));
  if (!values.dir && external.length) {
    throw new UserError(
      `finalstate tasks generate: --dir is required for the external pack${external.length > 1 ? 's' : ''} ${external.map((d) => d.name).join(', ')} (the project's tasks/ holds the built-in packs' sets)`,
    );
  }
  if (values.split !== undefined && !Split.safeParse(values.split).success)
    throw new UserError(`finalstate tasks generate: --split must be train or eval, got ${values.split}`);
  if (values.profile !== undefined && !Profile.safeParse(values.profile).success)
    throw new UserError(`finalstate tasks generate: --profile must be full or mini, got ${values.profile}`);
  const splits = values.split ? [Split.parse(values.split)] : Split.options;
  const count = integerFlag('generate', 'count', values.count ?? String(DEFAULT_GENERATE_COUNT), 1);
  const seed = integerFlag('generate', 'seed', values.seed ?? '1');
  const planned: { dir: string; name: string; domain: DomainDefinition; tasks: TaskInput[] }[] = [];
  for (const domain of domains) {
    const dir = values.dir ?? fromRoot(builtInTaskDirs[domain.name] ?? 'tasks');
    const profiles = values.profile
      ? servedProfiles(domain, [Profile.parse(values.profile)], 'finalstate tasks generate')
      : Profile.options.filter((profile) => {
          if (!servesProfile(domain, profile))
            console.error(`note: ${domain.name} does not serve the ${profile} profile; skipped`);
          return servesProfile(domain, profile);
        });
    for (const profile of profiles) {
      for (const split of splits) {
        const tasks = checkedTaskSet(domain, { seed, split, profile, count }, 'finalstate tasks generate');
        planned.push({ dir, name: `${domain.name}-${split}-${profile}`, domain, tasks });
      }
    }
  }
  const written = planned.map((p) => {
    const set = writeTaskSet(p.dir, p.name, p.domain.version, p.tasks);
    return { file: set.file, manifest: set.manifestFile, tasks: set.tasks.length };
  });
  if (values.json) printJson(written);
  else for (const w of written) console.log(`${w.file}: ${w.tasks} tasks`);
  if (values.count === undefined && !values.json && domains.some((d) => !registry.isBuiltIn(d.name)))
    console.error(
      `note: ${count} tasks per set (the default); \`tasks verify\` runs about 5 episodes per task, minutes for these sets: while iterating on a pack, generate --count 8`,
    );
  return 0;
}

function listTasks(tasks: Task[], json: boolean): number {
  const rows = tasks.map((t) => ({
    id: t.id,
    domain: t.domain,
    split: t.split,
    profile: t.profile,
    tags: t.tags,
  }));
  if (json) printJson(rows);
  else for (const r of rows) console.log(`${r.id}  ${r.domain}/${r.split}/${r.profile}  [${r.tags.join(', ')}]`);
  return 0;
}

function showTask(id: string | undefined, allTasks: () => Task[], dir: string, json: boolean): number {
  if (!id) throw new UserError('finalstate tasks show: give a task id');
  const task = allTasks().find((t) => t.id === id);
  if (!task) throw new UserError(`finalstate tasks show: no task ${id} in ${dir}`);
  if (json) printJson(task);
  else console.log(JSON.stringify(task, null, 2));
  return 0;
}

/** One task-set file against the schemas and the domain, its golden calls replayed. */
async function validateTaskSet(file: string | undefined, json: boolean): Promise<number> {
  if (!file) throw new UserError('finalstate tasks validate: give a task-set file (.jsonl)');
  const env = await environment();
  try {
    const set = await validateTaskSetFile(file, env.backend, env.expected);
    if (json) printJson({ file, valid: true, tasks: set.tasks.length });
    else console.log(`${file}: ${set.tasks.length} tasks valid (golden calls replayed)`);
    return 0;
  } finally {
    await env.backend.close();
  }
}

/**
 * `tasks verify` has nothing to play an OpenEnv task's oracle with: its server grades it and holds what solves it. A
 * clear refusal naming the sets, never a verification that silently skips them.
 */
function refuseOpenEnvSets(sets: LoadedTaskSet[]): void {
  const served = sets.filter((set) => set.tasks.some((t) => t.openenv));
  if (served.length === 0) return;
  const which = served.map((set) => `${set.file} (${set.tasks.filter((t) => t.openenv).length} OpenEnv tasks)`);
  throw new UserError(
    `finalstate tasks verify: ${which.join(', ')}: an OpenEnv task is graded by its own server, which holds what solves it, so there is no oracle here to verify it with; \`tasks import-openenv\` reset each task when it wrote the set, and \`finalstate run --dir DIR --task ID\` plays one against its server (verify the other sets with --dir)`,
  );
}

/** `tasks verify` on ThinkingBox sets: each task played on ThinkingBox's servers and graded by its test runner. */
async function verifyThinkingBoxSets(
  dirs: string[],
  values: { domain?: string; split?: string; profile?: string; concurrency: string; json: boolean },
): Promise<number> {
  const concurrency = integerFlag('verify', 'concurrency', values.concurrency, 1);
  const sets = dirs
    .flatMap((d) => readTaskSets(d))
    .map((set) => ({
      manifestFile: set.manifestFile,
      tasks: filterTasks(set.tasks, values).filter((t) => t.thinkingbox),
    }))
    .filter((set) => set.tasks.length > 0);
  const runtime = await createEpisodeRuntime(loadConfig());
  const started = performance.now();
  try {
    const report = await verifyThinkingBoxTasks(runtime.runner, sets, { concurrency });
    const seconds = Math.round((performance.now() - started) / 1000);
    for (const p of report.problems) console.error(`${p.taskId} ${p.agent}: ${p.message}`);
    if (report.duplicatesAbsorbed.length)
      console.error(
        `note: a duplicated last write leaves the state unchanged (an idempotent update) in ${report.duplicatesAbsorbed.length} task(s), so they have no duplicate mutation`,
      );
    const deviations = thinkingBoxDeviations(sets.flatMap((set) => set.tasks));
    if (values.json) printJson({ ...report, seconds, deviations });
    else {
      for (const line of deviations) console.log(line);
      const kinds = Object.entries(report.mutations.byKind)
        .map(([k, v]) => `${k} ${v.failed}/${v.total}`)
        .join(', ');
      console.log(
        `ThinkingBox tasks ${report.tasks}: oracle passed ${report.oracle.passed}/${report.oracle.total}, no-op failed ${report.noop.failed}/${report.noop.total}, mutations failed ${report.mutations.failedAsExpected}/${report.mutations.total} (${kinds}), unverifiable (no golden calls) ${report.unverifiable} (${seconds} s)`,
      );
    }
    return report.problems.length ? 1 : 0;
  } finally {
    await runtime.close();
  }
}

/** Plays each selected task with the oracle, the no-op agent and its mutations; 1 when any did not grade as expected. */
async function verifyTasksOf(
  allTasks: () => Task[],
  values: { domain?: string; split?: string; profile?: string; concurrency: string; json: boolean },
): Promise<number> {
  const env = await environment();
  try {
    const tasks = filterTasks(allTasks(), values);
    const concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new UserError(
        `finalstate tasks verify: --concurrency must be a positive integer, got ${values.concurrency}`,
      );
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) / 1000);
    if (!values.json)
      console.error(
        `verifying ${tasks.length} task(s), ${concurrency} at once: the oracle, the no-op agent and up to 3 mutations each${tasks.length > 100 ? ' (minutes; --count 8 at generate while iterating)' : ''}`,
      );
    const report = await verifyTasks(env.backend, env.expected, tasks, {
      concurrency,
      onProgress: (done) => {
        if (!values.json && process.stderr.isTTY) process.stderr.write(`\r${done}/${tasks.length} (${elapsed()} s)`);
      },
    });
    if (!values.json && process.stderr.isTTY) process.stderr.write('\n');
    const { problems, duplicatesAbsorbed, ...counts } = report;
    for (const p of problems) console.error(`${p.taskId} ${p.agent}: ${p.message}`);
    if (duplicatesAbsorbed.length)
      console.error(
        `note: the tools reject every duplicated write of ${duplicatesAbsorbed.length} task(s), so they have no duplicate mutation: ${duplicatesAbsorbed.join(', ')}`,
      );
    if (values.json) printJson(counts);
    else {
      console.log(
        `tasks ${counts.tasks}: oracle ${counts.oracle.passed}/${counts.oracle.total}, no-op passed ${counts.noop.passed} (read-only ${counts.noop.readOnly}), mutations failed as expected ${counts.mutations.failedAsExpected}/${counts.mutations.total} (${elapsed()} s)`,
      );
    }
    return problems.length ? 1 : 0;
  } finally {
    await env.backend.close();
  }
}

/** Samples generated tasks of the selected packs against their invariants; 1 when any is violated. */
async function checkInvariants(values: {
  domain?: string;
  profile?: string;
  count?: string;
  seed?: string;
  json: boolean;
}): Promise<number> {
  const registry = await defaultRegistry();
  const count = integerFlag('check', 'count', values.count ?? '2000', 1);
  const seed = integerFlag('check', 'seed', values.seed ?? '1');
  if (values.profile !== undefined && !Profile.safeParse(values.profile).success)
    throw new UserError(`finalstate tasks check: --profile must be full or mini, got ${values.profile}`);
  const samples = selectedDomains(registry, values.domain).map((domain) =>
    sampleInvariants(domain, {
      seeds: [seed, seed + 1],
      count,
      ...(values.profile ? { profiles: [Profile.parse(values.profile)] } : {}),
    }),
  );
  const violations = samples.reduce((n, s) => n + s.violations.length, 0);
  if (values.json)
    printJson(
      samples.map((s) => ({
        domain: s.domain,
        tasks: s.tasks,
        invariants: s.invariants,
        turnedOff: s.turnedOff,
        violations: s.violations.length,
        results: s.results,
      })),
    );
  else
    for (const s of samples) {
      console.log(
        `${s.domain}: ${s.tasks.toLocaleString('en-US')} generated tasks (${count.toLocaleString('en-US')} per seed, split and profile), ${s.invariants.length} invariant(s), ${s.violations.length.toLocaleString('en-US')} violation(s)`,
      );
      for (const line of describeInvariantResults(s.results)) console.log(line);
      for (const off of s.turnedOff)
        console.log(`  off  ${off.name} (built-in), turned off by the pack: ${off.reason}`);
    }
  return violations ? 1 : 0;
}

/** Drops the episode databases and roles left behind longer than --ttl-minutes. */
async function sweepLeaked(values: { 'ttl-minutes': string; json: boolean }): Promise<number> {
  const ttl = Number(values['ttl-minutes']);
  if (!Number.isFinite(ttl) || ttl < 0)
    throw new UserError(
      `finalstate tasks janitor: --ttl-minutes must be a non-negative number, got ${values['ttl-minutes']}`,
    );
  const env = await environment();
  try {
    const report = await sweepLeakedEpisodes(env.backend.admin, { ttlMs: ttl * 60_000 });
    if (values.json) printJson(report);
    else console.log(`dropped ${report.droppedDatabases.length} database(s), ${report.droppedRoles.length} role(s)`);
    return 0;
  } finally {
    await env.backend.close();
  }
}

async function importThinkingBoxSet(values: {
  data?: string;
  tests?: string[];
  'test-list'?: string;
  out?: string;
  split?: string;
  'keep-sources'?: boolean;
  json?: boolean;
}): Promise<number> {
  const split = Split.safeParse(values.split ?? 'train');
  if (!split.success)
    throw new UserError(`finalstate tasks import-thinkingbox: --split must be train or eval, got ${values.split}`);
  const config = loadConfig();
  const out = path.resolve(values.out ?? path.join(config.dataPath, 'thinkingbox', `thinkingbox-${split.data}.jsonl`));
  if (!out.endsWith('.jsonl'))
    throw new UserError(`finalstate tasks import-thinkingbox: --out must name a .jsonl file, got ${out}`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const report = await importThinkingBox(config, {
    ...(values.data ? { dataset: values.data } : {}),
    ...(values.tests?.length ? { inputs: values.tests } : {}),
    ...(values['test-list'] ? { testList: values['test-list'] } : {}),
    split: split.data,
    dropSources: !values['keep-sources'],
    out: { dir: path.dirname(out), name: path.basename(out, '.jsonl') },
  });
  if (values.json) printJson(report);
  else {
    console.log(`wrote ${report.tasks} ThinkingBox task(s) to ${report.file} (manifest ${report.manifestFile})`);
    for (const [scenario, n] of Object.entries(report.scenarios)) console.log(`  ${scenario}: ${n}`);
    if (report.droppedSources.length)
      console.log(
        `  deviation: sources left out of ${report.droppedSources.join(', ')} (no Typesense here): their policy search answers that search is unavailable`,
      );
    if (report.withoutGolden.length)
      console.log(`  without golden calls (unverifiable): ${report.withoutGolden.length}`);
  }
  return 0;
}

/** Tasks per set that `tasks generate` writes without --count. */
const DEFAULT_GENERATE_COUNT = 300;

export const tasksCommand: Command = {
  name: 'tasks',
  summary: 'list, show, validate, verify and generate task sets; serve a task episode over MCP',
  usage,
  async run(argv) {
    // its own flags (--task repeated, --url, …): parsed by the subcommand
    if (argv[0] === 'import-openenv') return importOpenEnvSet(argv.slice(1));
    const { values, positionals } = parse('tasks', argv, {
      dir: { type: 'string' },
      domain: { type: 'string' },
      split: { type: 'string' },
      profile: { type: 'string' },
      count: { type: 'string' },
      seed: { type: 'string' },
      task: { type: 'string' },
      transport: { type: 'string', default: 'stdio' },
      episode: { type: 'string' },
      keep: { type: 'boolean', default: false },
      ...httpGuardFlags,
      'ttl-minutes': { type: 'string', default: '60' },
      concurrency: { type: 'string', default: '2' },
      data: { type: 'string' },
      tests: { type: 'string', multiple: true },
      'test-list': { type: 'string' },
      out: { type: 'string' },
      'keep-sources': { type: 'boolean', default: false },
    });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    // Without --dir: every built-in pack's task sets (a directory is read with its sub-folders, so a pack's folder
    // inside another listed one is read once).
    const builtIn = [...new Set(Object.values(builtInTaskDirs))].map((d) => fromRoot(d));
    const dirs = values.dir
      ? [values.dir]
      : builtIn.filter((d) => !builtIn.some((other) => other !== d && d.startsWith(`${other}${path.sep}`)));
    const dir = dirs.join(', ');
    const allTasks = () => dirs.flatMap((d) => readTaskSets(d)).flatMap((s) => s.tasks);
    switch (positionals[0]) {
      case 'list':
        return listTasks(filterTasks(allTasks(), values), values.json);
      case 'show':
        return showTask(positionals[1], allTasks, dir, values.json);
      case 'validate':
        return validateTaskSet(positionals[1], values.json);
      case 'verify': {
        const sets = dirs.flatMap((d) => readTaskSets(d));
        refuseOpenEnvSets(sets);
        if (sets.some((set) => set.tasks.some((t) => t.thinkingbox))) return verifyThinkingBoxSets(dirs, values);
        return verifyTasksOf(allTasks, values);
      }
      case 'generate':
        return generate(values);
      case 'check':
        return checkInvariants(values);
      case 'janitor':
        return sweepLeaked(values);
      case 'serve-mcp':
        return serveMcp(values, dir, allTasks);
      case 'import-thinkingbox':
        return importThinkingBoxSet(values);
      default:
        throw new UserError(
          `finalstate tasks: expected list, show, validate, verify, generate, check, serve-mcp, import-thinkingbox, import-openenv or janitor, got ${positionals[0] ?? 'nothing'}\n\n${usage}`,
        );
    }
  },
};

type ServeMcpFlags = HttpGuardFlags & {
  task?: string;
  transport?: string;
  episode?: string;
  keep?: boolean;
  'token-file'?: string;
};

async function serveMcp(values: ServeMcpFlags, dir: string, allTasks: () => Task[]): Promise<number> {
  if (!values.task) throw new UserError('finalstate tasks serve-mcp: --task ID is required');
  if (values.transport !== 'stdio' && values.transport !== 'http')
    throw new UserError(`finalstate tasks serve-mcp: --transport must be stdio or http, got ${values.transport}`);
  const httpOptions = httpServeOptions('tasks serve-mcp', values, 'FINALSTATE_MCP_TOKEN');
  const task = allTasks().find((t) => t.id === values.task);
  if (!task) throw new UserError(`finalstate tasks serve-mcp: no task ${values.task} in ${dir}`);
  const episodeId = values.episode ?? `serve-${task.id}-${process.pid}`;
  const config = loadConfig();
  const tokenFile = path.resolve(
    values['token-file'] ?? path.join(config.dataPath, 'mcp', `${episodeId.replace(/[^A-Za-z0-9._-]/g, '_')}.token`),
  );
  const token = httpOptions.token ?? newBearerToken();
  // before anything is provisioned: a path that is not ours to write stops here
  if (values.transport === 'http') writeTokenFile(tokenFile, token);
  const removeTokenFile = () => values.transport === 'http' && fs.rmSync(tokenFile, { force: true });
  const env = await environment(config);
  const episode = await env.backend.open(episodeId, task).catch((err: unknown) => {
    removeTokenFile();
    throw err;
  });
  const executor = new EpisodeToolExecutor(env.backend, episode);
  const finish = async () => {
    removeTokenFile();
    if (values.keep) await env.backend.detach(episode);
    else await env.backend.teardown(episode, { wait: true });
    await env.backend.close();
  };
  try {
    if (values.transport === 'stdio') {
      process.stderr.write(
        `finalstate: serving task ${task.id} (episode ${episodeId}, database ${episode.database}) over stdio\n`,
      );
      await serveStdio(createEpisodeMcpServer(executor));
      return 0;
    }
    const endpoint = await serveHttp(
      () => createEpisodeMcpServer(executor),
      { ...httpOptions, token },
      (line) => process.stderr.write(`finalstate: ${line}\n`),
    );
    process.stderr.write(
      `finalstate: serving task ${task.id} (episode ${episodeId}) at ${endpoint.url}; send \`Authorization: Bearer <token>\` with the token in ${tokenFile}; ` +
        `at most ${httpOptions.maxSessions} sessions, each closed after ${httpOptions.sessionIdleSeconds} s idle\n`,
    );
    console.log(JSON.stringify({ url: endpoint.url, tokenFile, episodeId, database: episode.database }));
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await endpoint.close();
    return 0;
  } finally {
    await finish();
  }
}
