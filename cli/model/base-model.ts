import { z } from 'zod';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { readTaskSets, type LoadedTaskSet } from '../../environment/task-set.js';
import {
  demonstrationsKey,
  generatedTrainingSets,
  isDemonstrationTask,
  oracleDemonstrations,
} from '../../runtime/demonstrations/demonstrations.js';
import { getRenderer } from '../../runtime/interpreter/index.js';
import { ruleBreakingPlan } from '../../runtime/demonstrations/rule-breaking.js';
import { DEFAULT_CHAT_FAMILY } from '../../schemas/clients.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { runPythonModule } from '../../infra/python-module.js';
import { defaultRegistry } from '../../workers/registry.js';

/**
 * 40 generator seeds whose entity-number offsets (seed x 7919 mod 400000) scatter over the training range, a few tasks
 * each: every digit position of the ids varies, so copying them has to be learned. (Three seeds with 75 consecutive
 * ids each were not enough: the middle digits stayed constants per seed.)
 */
export const DEFAULT_EXTRA_SEEDS = Array.from({ length: 40 }, (_, i) => 5 + 37 * i);

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
  ruleBreakingShare: number,
  only: readonly string[] | undefined,
  log: (line: string) => void,
) {
  const registry = await defaultRegistry({ config });
  const shipped = readTaskSets(dir).filter(
    (s) => s.tasks.some(isDemonstrationTask) && (!only || s.tasks.every((t) => only.includes(t.domain))),
  );
  if (shipped.length === 0)
    throw new UserError(
      `finalstate model build-base: no training-split mini tasks in ${dir}; run \`finalstate tasks generate\``,
    );
  const absent = (only ?? []).filter((d) => !shipped.some((s) => s.tasks.some((t) => t.domain === d)));
  if (absent.length > 0)
    throw new UserError(
      `finalstate model build-base: no training-split mini tasks of ${absent.join(', ')} in ${dir} (base-model domains)`,
    );
  // The domains the task directory trains on: a pack without training tasks there adds no demonstrations.
  const domains = registry.all().filter((d) => shipped.some((s) => s.tasks.some((t) => t.domain === d.name)));
  const sets = [
    ...shipped,
    ...generatedTrainingSets(domains, path.join(cacheDir, 'demonstration-tasks'), extra.seeds, extra.count),
  ];
  // The tiny base model's chat template is the qwen3 format (python/finalstate/base_model/chat_template.py).
  const renderer = getRenderer(DEFAULT_CHAT_FAMILY);
  // One plan over every set, so that a family's share holds across the shipped and the small generated sets.
  const plan = ruleBreakingPlan(
    sets.flatMap((s) => s.tasks.filter(isDemonstrationTask)),
    domains,
    ruleBreakingShare,
  );
  const fileOf = (group: LoadedTaskSet[], name: string) =>
    path.join(
      cacheDir,
      'demonstrations',
      `${name}-${demonstrationsKey(group, domains, renderer, plan).slice(0, 16)}.jsonl`,
    );
  const groups =
    maxDemos === undefined
      ? sets.map((set) => ({ sets: [set], file: fileOf([set], set.manifest.name) }))
      : [{ sets, file: fileOf(sets, `sample${maxDemos}`) }];
  const missing = groups.filter((g) => !fs.existsSync(g.file));
  const started = performance.now();
  const failed: string[] = [];
  const rejectedRuleBreaking: { taskId: string; problem: string }[] = [];
  const episodePrefix = `demo-${Date.now().toString(36)}`;
  if (missing.length > 0) {
    const runtime = await createEpisodeRuntime(config);
    try {
      for (const group of missing) {
        const run = await oracleDemonstrations(runtime, renderer, group.sets, {
          ...(maxDemos !== undefined ? { maxTasks: maxDemos } : {}),
          concurrency,
          episodePrefix,
          ...(plan.size > 0 ? { ruleBreaking: plan } : {}),
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
        rejectedRuleBreaking.push(...run.rejectedRuleBreaking);
        writeAtomically(group.file, run.demonstrations.map((d) => `${JSON.stringify(d.demonstration)}\n`).join(''));
        writeAtomically(
          ruleBreakingListOf(group.file),
          `${JSON.stringify({
            ruleBreakingShare,
            ruleBreaking: run.demonstrations.filter((d) => d.ruleBreaking).map((d) => d.taskId),
            rejected: run.rejectedRuleBreaking,
          })}\n`,
        );
      }
    } finally {
      await runtime.close();
    }
  }
  const combined = groups.length === 1 ? groups[0]!.file : fileOf(sets, 'demos');
  if (!fs.existsSync(combined)) writeAtomically(combined, groups.map((g) => fs.readFileSync(g.file, 'utf8')).join(''));
  const count = fs.readFileSync(combined, 'utf8').trim().split('\n').length;
  const ruleBreaking = groups
    .map((g) => ruleBreakingListOf(g.file))
    .filter((f) => fs.existsSync(f))
    .map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as { ruleBreaking: string[] })
    .reduce((n, list) => n + list.ruleBreaking.length, 0);
  return {
    file: combined,
    ruleBreaking,
    rejectedRuleBreaking,
    cached: missing.length === 0,
    count,
    failed,
    seconds: (performance.now() - started) / 1000,
    episodePrefix: missing.length ? episodePrefix : null,
  };
}

/** Beside each demonstrations file: which of its tasks were demonstrated by their rule-breaking path. */
const ruleBreakingListOf = (file: string) => file.replace(/\.jsonl$/, '.rule-breaking.json');

function writeAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}

function runPythonBuild(config: LoadedConfig, args: string[], log: (line: string) => void): Promise<PythonBuild> {
  return runPythonModule(config, {
    module: 'finalstate.base_model',
    args: ['build', ...args],
    result: z.custom<PythonBuild>((value) => typeof value === 'object' && value !== null),
    what: 'finalstate model build-base: the Python build',
    log,
    userErrorCodes: 'any',
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
  /**
   * Share of every task family with a rule-breaking path (DomainDefinition.ruleBreakingPath) demonstrated by that
   * path instead of the golden calls (default 0): the base then applies the domain rules inconsistently.
   */
  ruleBreakingShare?: number;
  /** SFT loss weight of the conversation's non-assistant tokens (default 0: assistant tokens only). */
  contextWeight?: number;
  /** The model's context length (default the build's, 2,048 positions). */
  maxPositions?: number;
  /** Only these domains' training sets are demonstrated (default: every domain with training sets in `dir`). */
  domains?: string[];
  /** Task-set directory of the demonstrations, sub-folders included (default tasks/: every built-in pack). */
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
  const demos = await demonstrationsFile(
    config,
    dir,
    cacheDir,
    extra,
    options.maxDemos,
    options.concurrency ?? 2,
    options.ruleBreakingShare ?? 0,
    options.domains,
    log,
  );
  log(
    `demonstrations: ${demos.count} in ${demos.file}${demos.cached ? ' (cached)' : ''}, ${demos.ruleBreaking} by a rule-breaking path`,
  );
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
      ...(options.contextWeight ? ['--context-weight', String(options.contextWeight)] : []),
      ...(options.maxPositions !== undefined ? ['--max-positions', String(options.maxPositions)] : []),
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
      ruleBreaking: demos.ruleBreaking,
      rejectedRuleBreaking: demos.rejectedRuleBreaking,
      episodePrefix: demos.episodePrefix,
      seconds: Math.round(demos.seconds * 10) / 10,
    },
    report: build.report,
    lossCurve,
    totalSeconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
