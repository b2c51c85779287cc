import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { defaultRegistry } from '../../environment/registry.js';
import { readTaskSets } from '../../environment/task-set.js';
import { loadConfig, type LoadedConfig } from '../../infra/config.js';
import { InfrastructureError, UserError } from '../../infra/errors.js';
import { fromRoot } from '../../infra/paths.js';
import { demonstrationsKey, isDemonstrationTask, oracleDemonstrations } from '../../runtime/demonstrations/demonstrations.js';
import { createEpisodeRuntime } from '../../runtime/episode/runtime.js';
import { getRenderer } from '../../runtime/interpreter/index.js';
import { parse, printJson, type Command } from '../command.js';
import { integerOption } from '../numberOption.js';
import { passRate, passRateUsage } from './model-pass-rate.js';

const usage = `finalstate model build-base [--steps N] [--max-demos N] [--seed N] [--json]

Builds (or finds in its cache) the tiny base model: runs the oracle episode of every training-split mini task through
the episode runtime, renders each conversation with the interpreter (cached by content hash), then trains a BPE
tokenizer and a ~1M-parameter Qwen3 model on them with \`python -m finalstate.base_model build\` (seeded, cached by
content hash). Prints the parameter count, the SFT loss curve, the build time and the checkpoint directory.

  --steps N          SFT steps (default 1500)
  --batch-size N     demonstrations per SFT step (default 16)
  --max-demos N      use at most N training tasks, spread over the task sets (default: all)
  --seed N           build seed (default 0)
  --concurrency N    oracle episodes at once while rendering demonstrations (default 2)
  --dir DIR          task-set directory (default tasks/)
  --cache-dir DIR    where demonstrations/ and models/ live (default <dataDir>)`;

interface PythonBuild {
  dir: string;
  hash: string;
  cached: boolean;
  report: { paramCount: number; finalLoss: number; buildSeconds: number; sftSteps: number; meanTokensPerExample: number; [key: string]: unknown };
}

/** The demonstrations file for these task sets, rendered once per content hash. */
async function demonstrationsFile(config: LoadedConfig, dir: string, cacheDir: string, maxDemos: number | undefined, concurrency: number, log: (line: string) => void) {
  const sets = readTaskSets(dir).filter((s) => s.tasks.some(isDemonstrationTask));
  if (sets.length === 0) throw new UserError(`finalstate model build-base: no training-split mini tasks in ${dir}; run \`finalstate tasks generate\``);
  const registry = await defaultRegistry();
  const renderer = getRenderer('qwen3');
  const key = demonstrationsKey(sets, registry.all(), renderer);
  const file = path.join(cacheDir, 'demonstrations', `demos-${key.slice(0, 16)}${maxDemos === undefined ? '' : `-max${maxDemos}`}.jsonl`);
  if (fs.existsSync(file)) return { file, cached: true, count: fs.readFileSync(file, 'utf8').trim().split('\n').length, failed: [] as string[], seconds: 0, episodePrefix: null };
  const episodePrefix = `demo-${key.slice(0, 12)}-${Date.now().toString(36)}`;

  const started = performance.now();
  const runtime = await createEpisodeRuntime(config);
  try {
    const run = await oracleDemonstrations(runtime, renderer, sets, {
      ...(maxDemos !== undefined ? { maxTasks: maxDemos } : {}),
      concurrency,
      episodePrefix,
      onEpisode: (done, total) => {
        if (done % 50 === 0 || done === total) log(`demonstrations: ${done}/${total} oracle episodes`);
      },
    });
    if (run.demonstrations.length === 0) throw new UserError(`finalstate model build-base: no oracle episode of ${dir} earned reward 1`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.tmp-${process.pid}`;
    fs.writeFileSync(temporary, run.demonstrations.map((d) => JSON.stringify(d.demonstration)).join('\n') + '\n');
    fs.renameSync(temporary, file);
    return { file, cached: false, count: run.demonstrations.length, failed: run.failedTaskIds, seconds: (performance.now() - started) / 1000, episodePrefix };
  } finally {
    await runtime.close();
  }
}

function runPythonBuild(config: LoadedConfig, args: string[], log: (line: string) => void): Promise<PythonBuild> {
  const python = fromRoot(config.python.venv, 'bin', 'python');
  if (!fs.existsSync(python)) throw new UserError(`finalstate model build-base: Python not found at ${python}; run \`npm run setup\``);
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-m', 'finalstate.base_model', 'build', ...args], { env: { ...process.env, PYTHONPATH: fromRoot('python') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderrTail = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      stderrTail = (stderrTail + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) log(line);
    });
    child.on('error', (err) => reject(new InfrastructureError(`base model build could not start: ${err.message}`, 'python')));
    child.on('close', (code) => {
      if (code !== 0) return reject(new UserError(`finalstate model build-base: the Python build failed (exit ${code}):\n${stderrTail}`));
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()!) as PythonBuild);
      } catch {
        reject(new InfrastructureError(`base model build printed no result: ${stdout.slice(-500)}`, 'python'));
      }
    });
  });
}

async function buildBase(argv: string[]): Promise<number> {
  const { values } = parse('model build-base', argv, {
    steps: { type: 'string' },
    'batch-size': { type: 'string' },
    'max-demos': { type: 'string' },
    seed: { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '2' },
    dir: { type: 'string' },
    'cache-dir': { type: 'string' },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const config = loadConfig();
  const steps = integerOption(values.steps, 'steps', 'model build-base', 1);
  const batchSize = integerOption(values['batch-size'], 'batch-size', 'model build-base', 1);
  const maxDemos = integerOption(values['max-demos'], 'max-demos', 'model build-base', 1);
  const seed = integerOption(values.seed, 'seed', 'model build-base', 0) ?? 0;
  const concurrency = integerOption(values.concurrency, 'concurrency', 'model build-base', 1) ?? 2;
  const dir = values.dir ? path.resolve(values.dir) : fromRoot('tasks');
  const cacheDir = values['cache-dir'] ? path.resolve(values['cache-dir']) : config.dataPath;
  const log = (line: string) => process.stderr.write(`${line}\n`);

  const started = performance.now();
  const demos = await demonstrationsFile(config, dir, cacheDir, maxDemos, concurrency, log);
  log(`demonstrations: ${demos.count} in ${demos.file}${demos.cached ? ' (cached)' : ''}`);
  const build = await runPythonBuild(
    config,
    ['--demos', demos.file, '--cache-dir', path.join(cacheDir, 'models'), '--seed', String(seed), ...(steps !== undefined ? ['--steps', String(steps)] : []), ...(batchSize !== undefined ? ['--batch-size', String(batchSize)] : [])],
    log,
  );
  const curve = (JSON.parse(fs.readFileSync(path.join(build.dir, 'build_report.json'), 'utf8')) as { lossCurve: { step: number; loss: number }[] }).lossCurve;
  const lossCurve = curve.filter((_, i) => i % Math.max(1, Math.floor(curve.length / 10)) === 0 || i === curve.length - 1);
  const result = {
    checkpointDir: build.dir,
    contentHash: build.hash,
    cached: build.cached,
    demonstrations: { file: demos.file, count: demos.count, cached: demos.cached, failedOracleTasks: demos.failed, episodePrefix: demos.episodePrefix, seconds: Math.round(demos.seconds * 10) / 10 },
    report: build.report,
    lossCurve,
    totalSeconds: Math.round((performance.now() - started) / 100) / 10,
  };
  if (values.json) printJson(result);
  else {
    const r = build.report;
    console.log(`base model ${build.cached ? '(cached) ' : ''}${build.dir}`);
    console.log(`  parameters ${r.paramCount.toLocaleString('en-US')}, ${demos.count} demonstrations, ${r.meanTokensPerExample.toFixed(0)} tokens each on average`);
    console.log(`  SFT loss ${lossCurve.map((p) => `${p.step}:${p.loss.toFixed(3)}`).join(' ')}`);
    console.log(`  SFT ${r.sftSteps} steps, final loss ${r.finalLoss.toFixed(4)}, model build ${r.buildSeconds.toFixed(0)} s, whole command ${result.totalSeconds} s`);
  }
  return 0;
}

export const modelCommand: Command = {
  name: 'model',
  summary: 'build the tiny base model (model build-base) and measure a served policy (model pass-rate)',
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'build-base') return buildBase(rest);
    if (sub === 'pass-rate') return passRate(rest);
    if (sub === undefined || sub === '--help' || sub === '-h') {
      console.log(`${usage}\n\n${passRateUsage}`);
      return 0;
    }
    throw new UserError(`finalstate model: unknown subcommand ${JSON.stringify(sub)}\n\n${usage}`);
  },
};
