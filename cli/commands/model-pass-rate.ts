import path from 'node:path';
import { mapLimited } from '../../core/concurrency.js';
import { readTaskSets } from '../../environment/task-set.js';
import { loadConfig } from '../../workers/config.js';
import { UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import { Profile, Split } from '../../schemas/task.js';
import { parse, printJson } from '../command.js';
import { integerOption, numberOption } from '../number-option.js';
import { firstModel } from './run.js';
import { loadPreset, presetConditions } from '../demo/preset.js';

export const passRateUsage = `finalstate model pass-rate --policy URL [--preset five-domain] [--split eval] [--profile mini] [--tasks N] [--trials K] [--json]

Measures a served policy: K sampled episodes on each of N tasks (spread evenly over the task sets of that split and
profile), through the episode runtime. Prints pass@1 and how many tasks were passed k times out of K.

  --preset NAME|FILE  the demo preset whose episode limits and sampling apply (default five-domain): the same conditions as
                      that preset's campaign evaluations
  --temperature T     sampling temperature (default: the preset's; printed when it departs from it)
  --dir DIR           task sets, sub-folders included (default tasks/)
  --concurrency N     episodes at once (default 2)`;

/** pass@1 of a served policy on a sample of tasks (measuring only: nothing is tuned on what it reports). */
export async function passRate(argv: string[]): Promise<number> {
  const { values } = parse('model pass-rate', argv, {
    policy: { type: 'string' },
    model: { type: 'string' },
    split: { type: 'string', default: 'eval' },
    profile: { type: 'string', default: 'mini' },
    tasks: { type: 'string', default: '40' },
    trials: { type: 'string', default: '2' },
    preset: { type: 'string', default: 'five-domain' },
    temperature: { type: 'string' },
    concurrency: { type: 'string', default: '2' },
    dir: { type: 'string' },
  });
  if (values.help) {
    console.log(passRateUsage);
    return 0;
  }
  if (!values.policy) throw new UserError(`finalstate model pass-rate: --policy URL is required\n\n${passRateUsage}`);
  const split = Split.safeParse(values.split);
  const profile = Profile.safeParse(values.profile);
  if (!split.success || !profile.success)
    throw new UserError(`finalstate model pass-rate: --split must be train|eval and --profile full|mini`);
  const taskCount = integerOption(values.tasks, 'tasks', 'model pass-rate', 1)!;
  const trials = integerOption(values.trials, 'trials', 'model pass-rate', 1)!;
  const concurrency = integerOption(values.concurrency, 'concurrency', 'model pass-rate', 1)!;
  const conditions = presetConditions(loadPreset(values.preset!).preset);
  const temperature =
    numberOption(values.temperature, 'temperature', 'model pass-rate', 0, 10) ?? conditions.sampling.temperature;
  const dir = values.dir ? path.resolve(values.dir) : fromRoot('tasks');
  const pool = readTaskSets(dir).flatMap((set) =>
    set.tasks.filter((t) => t.split === split.data && t.profile === profile.data).map((task) => ({ set, task })),
  );
  if (pool.length === 0)
    throw new UserError(`finalstate model pass-rate: no ${split.data}/${profile.data} tasks in ${dir}`);
  const chosen = Array.from(
    { length: Math.min(taskCount, pool.length) },
    (_, i) => pool[Math.floor((i * pool.length) / Math.min(taskCount, pool.length))]!,
  );
  const model = values.model ?? (await firstModel(values.policy));
  const runId = `passrate-${Date.now().toString(36)}`;
  const jobs = chosen.flatMap(({ set, task }, index) =>
    Array.from({ length: trials }, (_, trial) =>
      EpisodeRequest.parse({
        episodeId: `${runId}-${task.id}-${trial}`,
        taskId: task.id,
        taskSet: set.manifestFile,
        trial,
        seed: index * 1000 + trial,
        policy: {
          kind: 'served',
          client: {
            baseUrl: values.policy,
            model,
            family: 'qwen3',
            timeoutMs: 120_000,
            sampling: { ...conditions.sampling, temperature },
          },
        },
        limits: conditions.limits,
      }),
    ),
  );
  const runtime = await createEpisodeRuntime(loadConfig());
  const rewards = new Map<string, number[]>();
  const finishReasons: Record<string, number> = {};
  const started = performance.now();
  try {
    await mapLimited(jobs, concurrency, async (request) => {
      const outcome = await runtime.runner.run(request);
      rewards.set(request.taskId, [...(rewards.get(request.taskId) ?? []), outcome.reward]);
      finishReasons[outcome.finishReason] = (finishReasons[outcome.finishReason] ?? 0) + 1;
      if (!values.json)
        process.stderr.write(
          `${request.taskId} trial ${request.trial}: reward ${outcome.reward} (${outcome.finishReason})\n`,
        );
    });
  } finally {
    await runtime.close();
  }
  const all = [...rewards.values()].flat();
  const passes = (taskId: string) => rewards.get(taskId)!.filter((r) => r === 1).length;
  const tasksByPasses: Record<string, number> = {};
  for (const taskId of rewards.keys())
    tasksByPasses[`${passes(taskId)}/${trials}`] = (tasksByPasses[`${passes(taskId)}/${trials}`] ?? 0) + 1;
  const perFamily: Record<string, { episodes: number; passed: number }> = {};
  for (const { task } of chosen) {
    const family = `${task.domain}.${task.tags[0]}`;
    perFamily[family] ??= { episodes: 0, passed: 0 };
    perFamily[family].episodes += trials;
    perFamily[family].passed += passes(task.id);
  }
  const result = {
    runId,
    policy: values.policy,
    model,
    split: split.data,
    profile: profile.data,
    tasks: chosen.length,
    trials,
    preset: values.preset,
    conditions: { limits: conditions.limits, sampling: { ...conditions.sampling, temperature } },
    episodes: all.length,
    passed: all.filter((r) => r === 1).length,
    passAt1: all.filter((r) => r === 1).length / all.length,
    tasksByPasses,
    perFamily,
    finishReasons,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
  if (values.json) printJson(result);
  else {
    console.log(
      `pass@1 ${result.passAt1.toFixed(3)} (${result.passed}/${result.episodes}) on ${result.tasks} ${split.data}/${profile.data} tasks x ${trials}`,
    );
    console.log(
      `conditions of preset ${values.preset}: ${conditions.limits.maxAgentTurns} agent turns, ${conditions.sampling.maxTokens} tokens per turn, temperature ${temperature}${temperature === conditions.sampling.temperature ? '' : ` (the preset samples at ${conditions.sampling.temperature})`}`,
    );
    console.log(
      `tasks by passes: ${Object.entries(tasksByPasses)
        .sort()
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
    );
    for (const [family, f] of Object.entries(perFamily)) console.log(`  ${family}: ${f.passed}/${f.episodes}`);
  }
  return 0;
}
