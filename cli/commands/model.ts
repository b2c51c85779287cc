import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { defaultRegistry } from '../../wiring/registry.js';
import { readTaskSets, type LoadedTaskSet } from '../../environment/task-set.js';
import { loadConfig } from '../../infra/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { InfrastructureError, UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import {
  demonstrationsKey,
  generatedTrainingSets,
  isDemonstrationTask,
  oracleDemonstrations,
} from '../../runtime/demonstrations/demonstrations.js';
import { createEpisodeRuntime } from '../../wiring/episode-runtime.js';
import { getRenderer } from '../../runtime/interpreter/index.js';
import { parse, printJson, type Command } from '../command.js';
import { integerOption } from '../number-option.js';
import { passRate, passRateUsage } from './model-pass-rate.js';

const usage = `finalstate model build-base [--steps N] [--max-demos N] [--seed N] [--json]

Builds (or finds in its cache) the tiny base model: runs the oracle episode of every training-split mini task through
the episode runtime, renders each conversation with the interpreter (cached by content hash), then trains a BPE
tokenizer and a ~1M-parameter Qwen3 model on them with \`python -m finalstate.base_model build\` (seeded, cached by
content hash). Prints the parameter count, the SFT loss curve, the build time and the checkpoint directory.

  --steps N          SFT steps (default 1500)
  --batch-size N     demonstrations per SFT step (default 16)
  --max-demos N      use at most N training tasks, spread over the task sets (default: all)
  --extra-seeds LIST generator seeds of additional training-split mini task sets (default: 40 seeds scattered over the id range; none: '')
  --extra-count N    tasks per domain and extra seed (default 8)
  --seed N           build seed (default 0)
  --concurrency N    oracle episodes at once while rendering demonstrations (default 2)
  --dir DIR          task-set directory (default tasks/)
  --cache-dir DIR    where demonstrations/ and models/ live (default <dataDir>)`;

/**
 * 40 generator seeds whose entity-number offsets (seed x 7919 mod 400000) scatter over the training range, a few tasks
 * each: every digit position of the ids varies, so copying them has to be learned. (Three seeds with 75 consecutive
 * ids each were not enough: the middle digits stayed constants per seed.)
 */
const DEFAULT_EXTRA_SEEDS = Array.from({ length: 40 }, (_, i) => 5 + 37 * i);

interface PythonBuild {
  dir: string;
  hash: string;
  cached: boolean;
  report: {
    paramCount: number;
    finalLoss: number;
    buildSeconds: number;
    sftSteps: number;
    meanTokensPerExample: number;
    [key: string]: unknown;
  };
}

/**
 * The demonstrations file for these task sets. Each task set is rendered once per content hash into its own file
 * (adding a task set renders only that one); the build reads their concatenation. With `maxDemos`, one sample spread
 * over all sets is rendered instead.
 */
async function demonstrationsFile(
  config: LoadedConfig,
  dir: string,
  cacheDir: string,
  extra: { seeds: number[]; count: number },
  maxDemos: number | undefined,
  concurrency: number,
  log: (line: string) => void,
) {
  const registry = await defaultRegistry();
  const shipped = readTaskSets(dir).filter((s) => s.tasks.some(isDemonstrationTask));
  if (shipped.length === 0)
    throw new UserError(
      `finalstate model build-base: no training-split mini tasks in ${dir}; run \`finalstate tasks generate\``,
    );
  // The domains the task directory trains on: a pack without training tasks there adds no demonstrations.
  const domains = registry.all().filter((d) => shipped.some((s) => s.tasks.some((t) => t.domain === d.name)));
  const sets = [
    ...shipped,
    ...generatedTrainingSets(domains, path.join(cacheDir, 'demonstration-tasks'), extra.seeds, extra.count),
  ];
  const renderer = getRenderer('qwen3');
  const fileOf = (group: LoadedTaskSet[], name: string) =>
    path.join(cacheDir, 'demonstrations', `${name}-${demonstrationsKey(group, domains, renderer).slice(0, 16)}.jsonl`);
  const groups =
    maxDemos === undefined
      ? sets.map((set) => ({ sets: [set], file: fileOf([set], set.manifest.name) }))
      : [{ sets, file: fileOf(sets, `sample${maxDemos}`) }];
  const missing = groups.filter((g) => !fs.existsSync(g.file));
  const started = performance.now();
  const failed: string[] = [];
  const episodePrefix = `demo-${Date.now().toString(36)}`;
  if (missing.length > 0) {
    const runtime = await createEpisodeRuntime(config);
    try {
      for (const group of missing) {
        const run = await oracleDemonstrations(runtime, renderer, group.sets, {
          ...(maxDemos !== undefined ? { maxTasks: maxDemos } : {}),
          concurrency,
          episodePrefix,
          onEpisode: (done, total) => {
            if (done % 50 === 0 || done === total)
              log(`demonstrations ${path.basename(group.file)}: ${done}/${total} oracle episodes`);
          },
        });
        if (run.demonstrations.length === 0)
          throw new UserError(
            `finalstate model build-base: no oracle episode of ${group.sets.map((s) => s.file).join(', ')} earned reward 1`,
          );
        failed.push(...run.failedTaskIds);
        writeAtomically(group.file, run.demonstrations.map((d) => `${JSON.stringify(d.demonstration)}\n`).join(''));
      }
    } finally {
      await runtime.close();
    }
  }
  const combined = groups.length === 1 ? groups[0]!.file : fileOf(sets, 'demos');
  if (!fs.existsSync(combined)) writeAtomically(combined, groups.map((g) => fs.readFileSync(g.file, 'utf8')).join(''));
  const count = fs.readFileSync(combined, 'utf8').trim().split('\n').length;
  return {
    file: combined,
    cached: missing.length === 0,
    count,
    failed,
    seconds: (performance.now() - started) / 1000,
    episodePrefix: missing.length ? episodePrefix : null,
  };
}

function writeAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}

function runPythonBuild(config: LoadedConfig, args: string[], log: (line: string) => void): Promise<PythonBuild> {
  const python = fromRoot(config.python.venv, 'bin', 'python');
  if (!fs.existsSync(python))
    throw new UserError(`finalstate model build-base: Python not found at ${python}; run \`npm run setup\``);
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-m', 'finalstate.base_model', 'build', ...args], {
      env: { ...process.env, PYTHONPATH: fromRoot('python') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderrTail = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      stderrTail = (stderrTail + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) log(line);
    });
    child.on('error', (err) =>
      reject(new InfrastructureError(`base model build could not start: ${err.message}`, 'python')),
    );
    child.on('close', (code) => {
      if (code !== 0)
        return reject(
          new UserError(`finalstate model build-base: the Python build failed (exit ${code}):\n${stderrTail}`),
        );
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()!) as PythonBuild);
      } catch {
        reject(new InfrastructureError(`base model build printed no result: ${stdout.slice(-500)}`, 'python'));
      }
    });
  });
}

export interface BaseModelOptions {
  steps?: number;
  batchSize?: number;
  maxDemos?: number;
  seed?: number;
  concurrency?: number;
  extraSeeds?: number[];
  extraCount?: number;
  /** Task-set directory of the demonstrations (default tasks/). */
  dir?: string;
  /** Where demonstrations/ and models/ live (default <dataDir>). */
  cacheDir?: string;
  log?: (line: string) => void;
}

/** Builds (or finds in its cache) the tiny base model: oracle demonstrations, then the Python tokenizer + SFT build. */
export async function buildBaseModel(config: LoadedConfig, options: BaseModelOptions = {}) {
  const dir = options.dir ?? fromRoot('tasks');
  const cacheDir = options.cacheDir ?? config.dataPath;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const started = performance.now();
  const extra = { seeds: options.extraSeeds ?? DEFAULT_EXTRA_SEEDS, count: options.extraCount ?? 8 };
  const demos = await demonstrationsFile(config, dir, cacheDir, extra, options.maxDemos, options.concurrency ?? 2, log);
  log(`demonstrations: ${demos.count} in ${demos.file}${demos.cached ? ' (cached)' : ''}`);
  const build = await runPythonBuild(
    config,
    [
      '--demos',
      demos.file,
      '--cache-dir',
      path.join(cacheDir, 'models'),
      '--seed',
      String(options.seed ?? 0),
      ...(options.steps !== undefined ? ['--steps', String(options.steps)] : []),
      ...(options.batchSize !== undefined ? ['--batch-size', String(options.batchSize)] : []),
    ],
    log,
  );
  const curve = (
    JSON.parse(fs.readFileSync(path.join(build.dir, 'build_report.json'), 'utf8')) as {
      lossCurve: { step: number; loss: number }[];
    }
  ).lossCurve;
  const lossCurve = curve.filter(
    (_, i) => i % Math.max(1, Math.floor(curve.length / 10)) === 0 || i === curve.length - 1,
  );
  return {
    checkpointDir: build.dir,
    contentHash: build.hash,
    cached: build.cached,
    demonstrations: {
      file: demos.file,
      count: demos.count,
      cached: demos.cached,
      failedOracleTasks: demos.failed,
      episodePrefix: demos.episodePrefix,
      seconds: Math.round(demos.seconds * 10) / 10,
    },
    report: build.report,
    lossCurve,
    totalSeconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

async function buildBase(argv: string[]): Promise<number> {
  const { values } = parse('model build-base', argv, {
    steps: { type: 'string' },
    'batch-size': { type: 'string' },
    'max-demos': { type: 'string' },
    'extra-seeds': { type: 'string', default: DEFAULT_EXTRA_SEEDS.join(',') },
    'extra-count': { type: 'string', default: '8' },
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
  const extraCount = integerOption(values['extra-count'], 'extra-count', 'model build-base', 1)!;
  const extraSeeds = values['extra-seeds']!.split(',')
    .filter((v) => v.trim() !== '')
    .map((v) => integerOption(v.trim(), 'extra-seeds', 'model build-base', 0)!);
  const result = await buildBaseModel(config, {
    ...(steps !== undefined ? { steps } : {}),
    ...(batchSize !== undefined ? { batchSize } : {}),
    ...(maxDemos !== undefined ? { maxDemos } : {}),
    seed,
    concurrency,
    extraSeeds,
    extraCount,
    ...(values.dir ? { dir: path.resolve(values.dir) } : {}),
    ...(values['cache-dir'] ? { cacheDir: path.resolve(values['cache-dir']) } : {}),
  });
  const { report: r, lossCurve } = result;
  if (values.json) printJson(result);
  else {
    console.log(`base model ${result.cached ? '(cached) ' : ''}${result.checkpointDir}`);
    console.log(
      `  parameters ${r.paramCount.toLocaleString('en-US')}, ${result.demonstrations.count} demonstrations, ${r.meanTokensPerExample.toFixed(0)} tokens each on average`,
    );
    console.log(`  SFT loss ${lossCurve.map((p) => `${p.step}:${p.loss.toFixed(3)}`).join(' ')}`);
    console.log(
      `  SFT ${r.sftSteps} steps, final loss ${r.finalLoss.toFixed(4)}, model build ${r.buildSeconds.toFixed(0)} s, whole command ${result.totalSeconds} s`,
    );
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
