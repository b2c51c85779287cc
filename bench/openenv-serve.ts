// Oracle episodes served over OpenEnv against the same episodes played as `finalstate run` plays them:
//   npm run build && node dist/bench/openenv-serve.js [--concurrency 4] [--trials 2] [--rounds 2] [--json]
// The training pool's 18 tasks (bench/training-tasks.ts) x --trials episodes, --concurrency at once, each way, in
// --rounds alternating rounds (a swing in the machine's load falls on both alike):
//   finalstate run: the DatabaseEpisodeRunner with the oracle policy, in process (database, MCP tools, scripted user,
//     grading, the record in the control database);
//   OpenEnv: `finalstate env serve --openenv` on the pool, played by OpenEnv's own client (python -m
//     finalstate_openenv.oracle_client): the golden calls, one step each, then the oracle's closing message, which the
//     scripted user answers by ending the conversation; the server grades it.
// Each way runs a warm-up round first (one episode per task: templates built, expected states cached, spares made);
// its time is not counted, nor the server's and the client's start-up. Prints both rates and their ratio, measured
// in this run; asserts nothing.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { mapLimited } from '../core/concurrency.js';
import { fromRoot } from '../core/paths.js';
import { OPENENV_PYTHON } from '../infra/openenv-server.js';
import { EpisodeLimits, type EpisodeRequest } from '../schemas/episode.js';
import type { Task } from '../schemas/task.js';
import { loadConfig } from '../workers/config.js';
import { createEpisodeRuntime } from '../workers/episode-runtime.js';
import { BENCH_TRAINING_TASKS, benchTrainingTasks } from './training-tasks.js';

process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '4' },
    trials: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
  },
});
const concurrency = Number(values.concurrency);
const trials = Number(values.trials);
const rounds = Number(values.rounds);
const source = BENCH_TRAINING_TASKS;
const r2 = (x: number) => Math.round(x * 100) / 100;

const oracleRequest = (episodeId: string, taskId: string, trial: number, campaignId: string): EpisodeRequest => ({
  episodeId,
  taskId,
  taskSet: source.taskSet,
  trial,
  campaignId,
  policy: { kind: 'oracle' },
  user: { kind: 'scripted' },
  limits: EpisodeLimits.parse({}),
  seed: 1,
});

/** The oracle's closing message (runtime/policy/oracle-policy.ts): what the task's must_mention rubrics ask. */
const closingOf = (task: Task) =>
  ['Done: your request is handled.', ...task.rubrics.flatMap((r) => (r.kind === 'must_mention' ? [r.text] : []))].join(
    ' ',
  );

const config = loadConfig();
const listed = await benchTrainingTasks();
const campaignId = `bench-openenv-serve-${process.pid}-${Date.now()}`;

interface Burst {
  episodes: number;
  passed: number;
  infrastructure: number;
  seconds: number;
}

/** `finalstate run`'s way: the runner, in process. */
async function finalstateRunWay() {
  const runtime = await createEpisodeRuntime(config, { controlConnections: concurrency + 2 });
  const tasks = listed.map((t) => runtime.tasks.get(source.taskSet, t.taskId));
  const play = async (name: string, plan: { taskId: string; trial: number }[]): Promise<Burst> => {
    const rewards: number[] = [];
    const started = performance.now();
    await mapLimited(plan, concurrency, async ({ taskId, trial }) => {
      const id = `${campaignId}/${name}/${taskId}/t${trial}`;
      rewards.push((await runtime.runner.run(oracleRequest(id, taskId, trial, campaignId))).reward);
    });
    const seconds = (performance.now() - started) / 1000;
    return { episodes: rewards.length, passed: rewards.filter((r) => r === 1).length, infrastructure: 0, seconds };
  };
  return {
    tasks,
    play: (name: string, repeat: number) =>
      play(name, Array.from({ length: repeat }, (_, trial) => listed.map((t) => ({ taskId: t.taskId, trial }))).flat()),
    async close() {
      await runtime.control.query('DELETE FROM episodes WHERE campaign_id = $1', [campaignId]).catch(() => undefined);
      await runtime.close();
    },
  };
}

/** OpenEnv's way: `finalstate env serve --openenv` and OpenEnv's client. */
async function openEnvWay(tasks: Task[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-bench-openenv-'));
  const server = spawn(
    'node',
    [
      fromRoot('bin', 'finalstate.js'),
      'env',
      'serve',
      '--openenv',
      '--dir',
      source.taskSet,
      '--max-sessions',
      String(concurrency),
      '--token-file',
      path.join(dir, 'token'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // its log (a line per episode) is shown only when something fails
  let log = '';
  server.stderr.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-8000)));
  const close = async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ready = await new Promise<{ url: string; tokenFile: string }>((resolve, reject) => {
      readline.createInterface({ input: server.stdout }).once('line', (line) => resolve(JSON.parse(line)));
      server.once('exit', (code) => reject(new Error(`env serve exited (${code}) before it served:\n${log}`)));
    });
    const token = fs.readFileSync(ready.tokenFile, 'utf8').trim();
    const url = ready.url.replace('http://', `http://finalstate:${token}@`);
    const play = async (name: string, repeat: number): Promise<Burst> => {
      const file = path.join(dir, `${name}.json`);
      const plan = Array.from({ length: repeat }, () => tasks).flat();
      fs.writeFileSync(
        file,
        JSON.stringify(plan.map((t) => ({ task_id: t.id, calls: t.golden, closing: closingOf(t) }))),
      );
      const client = spawn(
        OPENENV_PYTHON,
        ['-m', 'finalstate_openenv.oracle_client', '--url', url, '--plan', file, '--concurrency', String(concurrency)],
        { env: { ...process.env, PYTHONPATH: fromRoot('python') }, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      client.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => client.once('exit', resolve));
      if (code !== 0) throw new Error(`the OpenEnv oracle client failed (${code}); the server's log:\n${log}`);
      // the client's own clock, around the episodes only (not its start-up)
      return JSON.parse(out.trim().split('\n').at(-1)!) as Burst;
    };
    return { play, close };
  } catch (err) {
    await close();
    throw err;
  }
}

const loadBefore = os.loadavg();
const runWay = await finalstateRunWay();
const totals = { run: [] as Burst[], openenv: [] as Burst[] };
try {
  const openenvWay = await openEnvWay(runWay.tasks);
  try {
    await runWay.play('warm-up', 1);
    await openenvWay.play('warm-up', 1);
    // alternating rounds: a swing in the machine's load falls on both ways alike
    for (let round = 0; round < rounds; round++) {
      totals.run.push(await runWay.play(`round-${round}`, trials));
      totals.openenv.push(await openenvWay.play(`round-${round}`, trials));
    }
  } finally {
    await openenvWay.close();
  }
} finally {
  await runWay.close();
}
const loadAfter = os.loadavg();
const sum = (bursts: Burst[]) => ({
  episodes: bursts.reduce((n, b) => n + b.episodes, 0),
  passed: bursts.reduce((n, b) => n + b.passed, 0),
  infrastructure: bursts.reduce((n, b) => n + b.infrastructure, 0),
  seconds: bursts.reduce((n, b) => n + b.seconds, 0),
});
const run = sum(totals.run);
const openenv = sum(totals.openenv);
const runRate = run.episodes / run.seconds;
const openenvRate = openenv.episodes / openenv.seconds;
const figures = {
  tasks: runWay.tasks.length,
  trials,
  rounds,
  concurrency,
  finalstateRun: { ...run, seconds: r2(run.seconds), episodesPerSecond: r2(runRate) },
  openenv: { ...openenv, seconds: r2(openenv.seconds), episodesPerSecond: r2(openenvRate) },
  ratio: r2(openenvRate / runRate),
  loadAverage: { before: loadBefore.map(r2), after: loadAfter.map(r2) },
};
if (values.json) console.log(JSON.stringify(figures, null, 2));
else
  console.log(
    `oracle episodes, ${figures.tasks} tasks x ${trials} trials x ${rounds} alternating rounds, ${concurrency} at once (load average ${figures.loadAverage.before.join(' ')} before, ${figures.loadAverage.after.join(' ')} after):\n` +
      `  finalstate run (the runner in process): ${run.episodes} episodes (${run.passed} passed) in ${r2(run.seconds)} s: ${r2(runRate)} episodes/s\n` +
      `  over OpenEnv (env serve, OpenEnv's client): ${openenv.episodes} episodes (${openenv.passed} passed, ${openenv.infrastructure} infrastructure) in ${r2(openenv.seconds)} s: ${r2(openenvRate)} episodes/s\n` +
      `  ratio OpenEnv / finalstate run: ${figures.ratio}`,
  );
