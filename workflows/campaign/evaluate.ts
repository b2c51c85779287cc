import { executeChild } from '@temporalio/workflow';
import type { EvaluationResult } from '../../schemas/pipeline.js';
import { evaluation } from '../evaluation.js';
import { addChildTotals, evaluationInput } from '../inputs.js';
import { evaluationScalars } from '../tracking.js';
import { childOptions, runChild, shortPath, track } from './children.js';
import type { CampaignRun } from './run.js';

/** Evaluates the step-`step` policy (0: the base policy) on the held-out tasks, and records its metrics. */
export async function evaluate(run: CampaignRun, step: number): Promise<void> {
  const { config, state } = run;
  const workflowId = `${run.id}/eval-step-${step}`;
  const started = Date.now();
  const result: EvaluationResult = await runChild(run, workflowId, () =>
    executeChild(evaluation, {
      workflowId,
      ...childOptions(
        run,
        step,
        config.tasks.eval.split,
        `evaluate ${step === 0 ? 'the base policy' : `the step-${step} policy`} · ${shortPath(config.tasks.eval.taskSet)} (${config.tasks.eval.split}) × k ${config.evaluation.k}`,
      ),
      args: [evaluationInput(config, state, step)],
    }),
  );
  addChildTotals(state, result);
  state.evalPoints.push({
    step,
    pass1: result.metrics.pass1,
    interval: [result.metrics.pass1Low, result.metrics.pass1High],
    label: step === 0 ? 'base' : `step ${step}`,
  });
  state.evalResultSets.push({ step, resultSet: result.resultSet });
  state.lastMetrics = {
    step,
    pass1: result.metrics.pass1,
    passAtK: result.metrics.passAtK,
    passedKK: result.metrics.passedKK,
    tasks: result.metrics.tasks,
  };
  await track(run, step, evaluationScalars(result, (Date.now() - started) / 1000));
}
