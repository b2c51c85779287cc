import { loadConfig } from '../../infra/config.js';
import { UserError } from '../../core/errors.js';
import { readJsonConfig } from '../../infra/json-config.js';
import { workflowUrl } from '../../infra/stack/temporal.js';
import { connectClient } from '../../infra/temporal-client.js';
import { EvaluationConfig } from '../../schemas/campaign.js';
import type { EvaluationInput } from '../../schemas/pipeline.js';
import { progressQuery } from '../../workflows/definitions.js';
import { evaluation } from '../../workflows/evaluation.js';
import { CampaignIdKey, StepKey } from '../../workflows/search-attributes.js';
import { parse, printJson, type Command } from '../command.js';
import { childProgressText } from '../progress.js';

const usage = `finalstate eval CONFIG [--json]

  Evaluate a policy on every task of a split, k trials each (schemas/campaign.ts EvaluationConfig), as the
  \`evaluation\` workflow with id eval/<evaluationId>. Rows go to the control database (result set eval/<evaluationId>);
  prints pass@1 with its interval, pass@k and tasks passed k/k. Workers must be running (control and episodes).`;

export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate a policy on a split, k trials per task, as a standalone evaluation workflow',
  usage,
  async run(argv) {
    const { values, positionals } = parse('eval', argv, {});
    if (values.help) {
      console.log(usage);
      return 0;
    }
    if (positionals.length !== 1)
      throw new UserError(`finalstate eval: expected one CONFIG file, got ${positionals.length}\n\n${usage}`);
    const config = loadConfig();
    const evalConfig = readJsonConfig(positionals[0]!, EvaluationConfig, 'evaluation config');
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
      const done = await result;
      if (values.json) printJson({ workflowId, ...done });
      else {
        const m = done.metrics;
        console.log(
          `  ${m.tasks} tasks x k=${done.k}: pass@1 ${(100 * m.pass1).toFixed(1)}% [${(100 * m.pass1Low).toFixed(1)}, ${(100 * m.pass1High).toFixed(1)}]  pass@${done.k} ${(100 * m.passAtK).toFixed(1)}%  passed k/k ${m.passedKK}`,
        );
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
