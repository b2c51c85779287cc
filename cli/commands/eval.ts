import fs from 'node:fs';
import { loadConfig } from '../../workers/config.js';
import { UserError } from '../../core/errors.js';
import { describeFailure } from '../../core/failure-causes.js';
import { readJsonConfig } from '../../workers/json-config.js';
import { workflowUrl } from '../../infra/stack/temporal.js';
import { connectClient } from '../../workers/temporal-client.js';
import { isDeepStrictEqual } from 'node:util';
import { EvaluationConfig } from '../../schemas/campaign.js';
import { PolicyClientConfig } from '../../schemas/clients.js';
import { EpisodeLimits } from '../../schemas/episode.js';
import { loadPreset, presetConditions } from '../demo/preset.js';
import type { EvaluationInput } from '../../schemas/pipeline.js';
import { progressQuery } from '../../workflows/definitions.js';
import { evaluation } from '../../workflows/evaluation.js';
import { CampaignIdKey, StepKey } from '../../workflows/search-attributes.js';
import { parse, printJson, type Command } from '../command.js';
import { readTaskSource } from '../../environment/task-set.js';
import { thinkingBoxDeviations } from '../../environment/thinkingbox/deviations.js';
import { localPathOf } from '../../storage/artifacts.js';
import type { Interval, MetricsReport, SetMetrics } from '../../stats/metrics.js';
import { childProgressText } from '../progress.js';

const usage = `finalstate eval CONFIG [--preset NAME|FILE] [--json]

  Evaluate a policy on every task of a split, k trials each (schemas/campaign.ts EvaluationConfig), as the
  \`evaluation\` workflow with id eval/<evaluationId>. Rows go to the control database (result set eval/<evaluationId>);
  prints pass@1 with its interval, pass@k and tasks passed k/k. Workers must be running (control and episodes). A
  failed evaluation prints its whole cause (with --json also {workflowId, failed}) and exits 1.

  --preset NAME|FILE  episode limits and the served policy's sampling come from this demo preset, as in its campaign
                      (the config must then leave them out, or state the same ones)`;

/**
 * An evaluation config with a preset's conditions filled in: its limits, and the served policy's sampling. A config
 * that states other ones is refused, naming the field, rather than silently measured under two sets of conditions.
 */
export function withPresetConditions(raw: unknown, conditions: ReturnType<typeof presetConditions>, where: string) {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const config = { ...(raw as Record<string, unknown>) };
  const clash = (field: string, stated: unknown, wanted: unknown) => {
    if (stated !== undefined && !isDeepStrictEqual(withSchemaDefaults(field, stated), wanted))
      throw new UserError(
        `${where}: ${field} is ${JSON.stringify(stated)}, but --preset sets ${JSON.stringify(wanted)}; leave it out to use the preset's`,
      );
  };
  clash('limits', config.limits, conditions.limits);
  config.limits = conditions.limits;
  const policy = config.policy as { kind?: unknown; client?: Record<string, unknown> } | undefined;
  if (policy?.kind === 'served' && policy.client && typeof policy.client === 'object') {
    clash('policy.client.sampling', policy.client.sampling, conditions.sampling);
    config.policy = { ...policy, client: { ...policy.client, sampling: conditions.sampling } };
  }
  return config;
}

/** A stated field, with its schema defaults filled in, so that a config stating part of the preset's values agrees. */
function withSchemaDefaults(field: string, stated: unknown): unknown {
  const schema = field === 'limits' ? EpisodeLimits : PolicyClientConfig.shape.sampling;
  const parsed = schema.safeParse(stated);
  return parsed.success ? parsed.data : stated;
}

/** pass@1 with its interval, pass@k, tasks passed k/k with its interval, cost per dependable task. */
function table1Line(name: string, m: SetMetrics): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const ci = ([low, high]: Interval) => `[${(100 * low).toFixed(1)}, ${(100 * high).toFixed(1)}]`;
  const perTask = m.costUsd.perDependableTask === null ? '—' : `$${m.costUsd.perDependableTask.toFixed(4)}`;
  return `${name}: ${m.tasks} tasks, pass@1 ${pct(m.pass1)} ${ci(m.intervals.pass1)}, pass@${m.k} ${pct(m.passAtK)}, passed ${m.k}/${m.k} ${m.observedKK.count} ${ci(m.intervals.observedKK)}, cost per dependable task ${perTask}`;
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate a policy on a split, k trials per task, as a standalone evaluation workflow',
  usage,
  async run(argv) {
    const { values, positionals } = parse('eval', argv, { preset: { type: 'string' } });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    if (positionals.length !== 1)
      throw new UserError(`finalstate eval: expected one CONFIG file, got ${positionals.length}\n\n${usage}`);
    const config = loadConfig();
    const file = positionals[0]!;
    const conditions = values.preset ? presetConditions(loadPreset(values.preset).preset) : undefined;
    const evalConfig = readJsonConfig(
      file,
      EvaluationConfig,
      'evaluation config',
      conditions ? (raw) => withPresetConditions(raw, conditions, `evaluation config ${file}`) : undefined,
    );
    const queues = evalConfig.taskQueues ?? config.taskQueues;
    const workflowId = `eval/${evalConfig.evaluationId}`;
    const input: EvaluationInput = {
      campaignId: workflowId,
      resultSet: workflowId,
      step: 0,
      source: evalConfig.tasks,
      k: evalConfig.k,
      window: evalConfig.window,
      ...(evalConfig.trainingDomains ? { trainingDomains: evalConfig.trainingDomains } : {}),
      settings: {
        policy: evalConfig.policy,
        user: evalConfig.user,
        ...(evalConfig.judge ? { judge: evalConfig.judge } : {}),
        limits: evalConfig.limits,
        retry: evalConfig.episodes,
        queues,
        seed: evalConfig.seed,
      },
    };
    const client = await connectClient(config);
    try {
      const handle = await client.workflow.start(evaluation, {
        taskQueue: queues.control,
        workflowId,
        args: [input],
        typedSearchAttributes: [
          { key: CampaignIdKey, value: workflowId },
          { key: StepKey, value: 0 },
        ],
      });
      if (!values.json) console.log(`evaluation ${workflowId}\n  ${workflowUrl(config, workflowId)}`);
      const result = handle.result();
      if (!values.json && process.stdout.isTTY) {
        let finished = false;
        void result.finally(() => (finished = true)).catch(() => undefined);
        while (!finished) {
          const p = await handle.query(progressQuery).catch(() => null);
          if (p) process.stdout.write(`\r\x1b[2K  ${childProgressText(p)}`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
        process.stdout.write('\n');
      }
      const done = await result.catch((err: unknown) => {
        // A failed evaluation: --json prints its whole cause too (cli/main.ts prints it on stderr, exit 1).
        if (values.json && (err as Error).name === 'WorkflowFailedError')
          printJson({ workflowId, failed: describeFailure(err) });
        throw err;
      });
      const deviations = thinkingBoxDeviations(
        readTaskSource(localPathOf(evalConfig.tasks.taskSet)).flatMap((set) =>
          set.tasks.filter((t) => t.split === evalConfig.tasks.split),
        ),
      );
      if (values.json) printJson({ workflowId, ...done, deviations });
      else {
        const m = done.metrics;
        const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
        console.log(
          `  ${m.tasks} tasks x k=${done.k}: pass@1 ${pct(m.pass1)} [${(100 * m.pass1Low).toFixed(1)}, ${(100 * m.pass1High).toFixed(1)}]  pass@${done.k} ${pct(m.passAtK)}  passed k/k ${m.passedKK}`,
        );
        // what the reference's Table 1 reports, overall and by domain, from the full metrics file
        const report = JSON.parse(fs.readFileSync(localPathOf(done.metricsUri), 'utf8')) as MetricsReport;
        for (const [name, set] of [['all', report] as const, ...Object.entries(report.byDomain)])
          console.log(`  ${table1Line(name, set)}`);
        for (const line of deviations) console.log(`  ${line}`);
        if (m.excludedInfra > 0)
          console.log(`  ${m.excludedInfra} episodes had no outcome (infrastructure) and are excluded`);
        console.log(`  metrics: ${done.metricsUri}`);
      }
      return 0;
    } finally {
      await client.connection.close();
    }
  },
};
