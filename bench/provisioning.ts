/**
 * Provisioning under a burst, each way of making an episode database side by side on the same burst, in one run:
 *   node dist/bench/provisioning.js [--burst 144] [--concurrency 16] [--hold-ms 300] [--modes a,b] [--json]
 * A burst is --burst episodes of the training pool (pools/rl-pool: its 18 tasks in turn), --concurrency at once;
 * each provisions (the tasks' own init included), holds its database --hold-ms (the rest of an episode), and tears down. Every mode starts from
 * the same state: templates built, spare pools warmed (untimed) to the size the mode keeps, nothing in flight.
 * The baseline is the bare `CREATE DATABASE ... TEMPLATE ... STRATEGY WAL_LOG` and `DROP DATABASE` on an admin pool
 * of the backend's size, measured in the same run; ratios are against it. Episodes/s counts until the background
 * work (drops, resets) of the burst is done. Prints figures; asserts nothing.
 */
import { BENCH_TRAINING_TASKS, benchTrainingTasks } from './training-tasks.js';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../workers/config.js';
import type { LoadedConfig } from '../schemas/config.js';
import type { Task } from '../schemas/task.js';
import { EnvironmentBackend, type BackendOptions } from '../environment/backend.js';
import { connectionConfig } from '../environment/connection.js';
import { scramVerifier } from '../environment/episode-credentials.js';
import { readTaskSource } from '../environment/task-set.js';
import { ident, literal } from '../environment/sql.js';
import { defaultRegistry } from '../workers/registry.js';

const { values } = parseArgs({
  options: {
    burst: { type: 'string', default: '144' },
    concurrency: { type: 'string', default: '16' },
    'hold-ms': { type: 'string', default: '300' },
    'admin-connections': { type: 'string', default: '5' },
    modes: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const burstSize = Number(values.burst);
const concurrency = Number(values.concurrency);
const holdMs = Number(values['hold-ms']);
const adminConnections = Number(values['admin-connections']);

interface Stats {
  p50: number;
  p95: number;
  mean: number;
}

const r1 = (x: number) => Math.round(x * 10) / 10;
function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: r1(at(0.5)), p95: r1(at(0.95)), mean: r1(sorted.reduce((a, b) => a + b, 0) / sorted.length) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

async function inParallel(count: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const settled = await Promise.allSettled(
    Array.from({ length: limit }, async () => {
      while (next < count && !failed) await fn(next++).catch((err) => ((failed = true), Promise.reject(err)));
    }),
  );
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw (failure as PromiseRejectedResult).reason;
}

/** How one mode makes and removes an episode's database. */
interface Mode {
  name: string;
  describe: string;
  /** Build what the mode needs and warm it; untimed. */
  setUp(): Promise<void>;
  provision(i: number, task: Task): Promise<unknown>;
  teardown(handle: unknown): Promise<void>;
  /** Wait for the mode's background work (drops, resets). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

const config = loadConfig();
/** The configuration of a worker running --concurrency episodes at once (the default spare pool is sized from it). */
const workerConfig: LoadedConfig = { ...config, workers: { ...config.workers, episodeConcurrency: concurrency } };
const registry = await defaultRegistry({ config });
// the 18 training tasks bench/episodes.ts runs
const source = BENCH_TRAINING_TASKS;
const chosen = new Set((await benchTrainingTasks()).map((t) => t.taskId));
const tasks = readTaskSource(source.taskSet)
  .flatMap((set) => set.tasks)
  .filter((t) => chosen.has(t.id));
const domains = [...new Set(tasks.map((t) => t.domain))].map((d) => registry.get(d));
const templates = new Map<string, string>();
{
  const backend = new EnvironmentBackend(config, registry, { sparesPerTemplate: 0 });
  for (const d of domains) templates.set(d.name, (await backend.template(d)).name);
  await backend.close();
}
const adminPool = () => new pg.Pool({ ...connectionConfig(config), max: adminConnections });

function backendMode(name: string, describe: string, options: BackendOptions, warmTo: number): Mode {
  let backend: EnvironmentBackend;
  return {
    name,
    describe,
    async setUp() {
      backend = new EnvironmentBackend(workerConfig, registry, { adminConnections, ...options });
      for (const d of domains) await backend.warmSpares(d, warmTo);
    },
    provision: (i, task) => backend.provision(`bench-prov-${name}-${process.pid}-${i}`, task),
    teardown: (episode) => backend.teardown(episode as Awaited<ReturnType<EnvironmentBackend['provision']>>),
    drain: () => backend.flushDrops(),
    close: () => backend.close(),
  };
}

/** The baseline: the bare statements, nothing else (no role, no grants, no init, no spare). */
function bareMode(): Mode {
  let admin: pg.Pool;
  const drops: Promise<unknown>[] = [];
  return {
    name: 'bare-create',
    describe: 'bare CREATE DATABASE ... TEMPLATE (WAL_LOG) + DROP DATABASE',
    async setUp() {
      admin = adminPool();
    },
    async provision(i, task) {
      const name = `fs_bench_bare_${process.pid}_${i}`;
      await admin.query(
        `CREATE DATABASE ${ident(name)} TEMPLATE ${ident(templates.get(task.domain)!)} STRATEGY WAL_LOG`,
      );
      return name;
    },
    async teardown(name) {
      drops.push(admin.query(`DROP DATABASE ${ident(name as string)}`));
    },
    async drain() {
      await Promise.all(drops.splice(0));
    },
    close: () => admin.end(),
  };
}

/**
 * PROTOTYPE, not adopted: a schema per episode in one shared database per domain, with a role per schema. Each
 * episode's schema gets a copy of every table (LIKE ... INCLUDING ALL, then the rows); its role gets CONNECT on the
 * shared database (through a group role), USAGE on its schema and the table privileges. It leaves out what a real one would need (foreign
 * keys, the internal SECURITY DEFINER functions, which name `public.` tables; domain functions and triggers;
 * revoking the other schemas), so it is a lower bound of its cost.
 */
function schemaMode(): Mode {
  let admin: pg.Pool;
  const shared = new Map<string, { database: string; pool: pg.Pool; tables: string[] }>();
  const pending: Promise<unknown>[] = [];
  const group = `bench_schemas_${process.pid}`;
  return {
    name: 'schema-per-episode',
    describe: 'PROTOTYPE: a schema + role per episode in a shared database',
    async setUp() {
      admin = adminPool();
      // CONNECT through a group: concurrent GRANTs on one database fail ("tuple concurrently updated")
      await admin.query(`CREATE ROLE ${ident(group)} NOLOGIN`);
      for (const [domain, template] of templates) {
        const database = `fs_bench_shared_${process.pid}_${domain}`;
        await admin.query(`CREATE DATABASE ${ident(database)} TEMPLATE ${ident(template)} STRATEGY WAL_LOG`);
        await admin.query(`GRANT CONNECT ON DATABASE ${ident(database)} TO ${ident(group)}`);
        const pool = new pg.Pool({ ...connectionConfig(config, database), max: adminConnections });
        pool.on('error', () => undefined);
        const res = await pool.query<{ relname: string }>(
          "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY relname",
        );
        shared.set(domain, { database, pool, tables: res.rows.map((r) => r.relname) });
      }
    },
    async provision(i, task) {
      const { pool, tables } = shared.get(task.domain)!;
      const schema = `bench_ep_${process.pid}_${i}`;
      const role = `bench_er_${process.pid}_${i}`; // not a janitor prefix: nothing of the prototype is a real episode
      await admin.query(
        `CREATE ROLE ${ident(role)} LOGIN PASSWORD ${literal(scramVerifier(`bench-${i}`))} IN ROLE ${ident(group)}`,
      );
      await pool.query(
        [
          `BEGIN`,
          `CREATE SCHEMA ${ident(schema)}`,
          ...tables.flatMap((t) => [
            `CREATE TABLE ${ident(schema)}.${ident(t)} (LIKE public.${ident(t)} INCLUDING ALL)`,
            `INSERT INTO ${ident(schema)}.${ident(t)} SELECT * FROM public.${ident(t)}`,
          ]),
          `GRANT USAGE ON SCHEMA ${ident(schema)} TO ${ident(role)}`,
          `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${ident(schema)} TO ${ident(role)}`,
          `COMMIT`,
        ].join(';\n'),
      );
      return { pool, schema, role };
    },
    async teardown(handle) {
      const { pool, schema, role } = handle as { pool: pg.Pool; schema: string; role: string };
      pending.push(
        (async () => {
          await pool.query(`DROP SCHEMA ${ident(schema)} CASCADE; DROP OWNED BY ${ident(role)}`);
          await admin.query(`DROP ROLE ${ident(role)}`);
        })(),
      );
    },
    async drain() {
      await Promise.all(pending.splice(0));
    },
    async close() {
      for (const { database, pool } of shared.values()) {
        await pool.end();
        await admin.query(`DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`);
      }
      await admin.query(`DROP ROLE IF EXISTS ${ident(group)}`);
      await admin.end();
    },
  };
}

const allModes: Mode[] = [
  bareMode(),
  backendMode(
    'wal-log-1-spare',
    'WAL_LOG copy, 1 spare per template, drop (the old default)',
    { sparesPerTemplate: 1, reuse: 'drop' },
    1,
  ),
  backendMode(
    'file-copy-1-spare',
    'FILE_COPY copy, 1 spare per template, drop',
    { strategy: 'FILE_COPY', sparesPerTemplate: 1, reuse: 'drop' },
    1,
  ),
  backendMode(
    'wal-log-spares-c',
    `WAL_LOG copy, ${concurrency} spares per template (the concurrency), drop`,
    { sparesPerTemplate: concurrency, reuse: 'drop' },
    concurrency,
  ),
  backendMode(
    'reset-pool',
    `reset to template state and reused; pool sized from the concurrency (the new default)`,
    {},
    concurrency,
  ),
  schemaMode(),
];
const wanted = values.modes?.split(',');
const modes = wanted ? allModes.filter((m) => m.name === 'bare-create' || wanted.includes(m.name)) : allModes;

interface Figures {
  mode: string;
  describe: string;
  provision: Stats;
  teardown: Stats;
  episodesPerSecond: number;
  loadAverage: number[];
}

async function runBurst(mode: Mode): Promise<Figures> {
  await mode.setUp();
  const provision: number[] = [];
  const teardown: number[] = [];
  const started = performance.now();
  try {
    await inParallel(burstSize, concurrency, async (i) => {
      const [handle, p] = await timed(() => mode.provision(i, tasks[i % tasks.length]!));
      provision.push(p);
      await sleep(holdMs);
      const [, t] = await timed(() => mode.teardown(handle));
      teardown.push(t);
    });
    await mode.drain();
  } catch (err) {
    await mode.drain().catch(() => undefined); // before the pools close under it
    throw err;
  } finally {
    await mode.close();
  }
  const wallS = (performance.now() - started) / 1000;
  return {
    mode: mode.name,
    describe: mode.describe,
    provision: stats(provision),
    teardown: stats(teardown),
    episodesPerSecond: Number((burstSize / wallS).toFixed(2)),
    loadAverage: os.loadavg().map(r1),
  };
}

const results: Figures[] = [];
for (const mode of modes) results.push(await runBurst(mode));

if (values.json) console.log(JSON.stringify({ burstSize, concurrency, holdMs, adminConnections, results }, null, 2));
else {
  const base = results[0]!;
  console.log(
    `provisioning burst: ${burstSize} episodes (pools/rl-pool: ${domains.map((d) => d.name).join(', ')}), ${concurrency} at once, each holding its database ${holdMs} ms; ` +
      `admin pool ${adminConnections}; ${os.cpus().length} cores; ms; ratios against ${base.mode} in this run`,
  );
  console.log(
    `  ${'mode'.padEnd(20)} ${'provision p50'.padStart(13)} ${'p95'.padStart(8)} ${'mean'.padStart(8)}  ${'p95 ratio'.padStart(9)} ${'mean ratio'.padStart(10)}  ${'teardown p95'.padStart(12)}  ${'episodes/s'.padStart(10)}  load average after`,
  );
  for (const r of results)
    console.log(
      `  ${r.mode.padEnd(20)} ${String(r.provision.p50).padStart(13)} ${String(r.provision.p95).padStart(8)} ${String(r.provision.mean).padStart(8)}  ` +
        `${(r.provision.p95 / base.provision.p95).toFixed(3).padStart(9)} ${(r.provision.mean / base.provision.mean).toFixed(3).padStart(10)}  ` +
        `${String(r.teardown.p95).padStart(12)}  ${String(r.episodesPerSecond).padStart(10)}  ${r.loadAverage.join(' ')}`,
    );
  for (const r of results) console.log(`  ${r.mode}: ${r.describe}`);
}
