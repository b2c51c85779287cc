import type { EvaluationResult } from '../schemas/pipeline.js';
import type { StepSummary } from '../schemas/results.js';

/** The scalars of one GRPO step, as the trackers show them (`train/…`, `time/…`). */
export function stepScalars(summary: StepSummary, costUsd: number): Record<string, number> {
  const out: Record<string, number> = {
    'train/mean_reward': summary.meanReward,
    'train/informative_fraction': summary.informativeFraction,
    'train/loss': summary.loss,
    'train/clip_fraction': summary.clipFraction,
    'train/cost_usd': costUsd,
  };
  const optional: Array<[string, number | undefined]> = [
    ['train/approx_kl', summary.approxKl],
    ['train/tokens', summary.tokens],
    ['train/replacements', summary.replacements],
    ['train/refills', summary.refills],
    ['train/infra_failures', summary.infraFailures],
    ['train/cut_off_turns', summary.truncatedTurns],
    ['train/optimizer_steps', summary.optimizerSteps],
    ['train/staleness_mean', summary.stalenessMean],
    ['train/staleness_max', summary.stalenessMax],
    ['train/stale_groups', summary.staleGroups],
    ['train/sampler_drift_mean', summary.samplerDriftMean],
    ['train/sampler_drift_max', summary.samplerDriftMax],
    ['train/is_weight_mean', summary.isWeightMean],
    ['train/is_weight_max', summary.isWeightMax],
    ['train/is_truncated_fraction', summary.isTruncatedFraction],
    ['time/wait_for_previous_s', summary.wallSeconds?.waitForPrevious],
    ['time/rollouts_s', summary.wallSeconds?.rollouts],
    ['time/batch_s', summary.wallSeconds?.batch],
    ['time/update_s', summary.wallSeconds?.update],
    ['time/publish_s', summary.wallSeconds?.publish],
    ['time/step_s', summary.wallSeconds?.total],
  ];
  for (const [name, value] of optional) if (value !== undefined) out[name] = value;
  return out;
}

/** The scalars of one evaluation (`eval/…`, per domain `eval/<domain>/…`). */
export function evaluationScalars(result: EvaluationResult, wallSeconds: number): Record<string, number> {
  const m = result.metrics;
  const out: Record<string, number> = {
    'eval/pass@1': m.pass1,
    'eval/pass@1_low': m.pass1Low,
    'eval/pass@1_high': m.pass1High,
    [`eval/pass@${result.k}`]: m.passAtK,
    [`eval/passed_${result.k}_of_${result.k}`]: m.tasks > 0 ? m.passedKK / m.tasks : 0,
    'eval/tasks': m.tasks,
    'eval/cost_usd': result.costUsd,
    'eval/infra_failures': result.episodes.infraFailed,
    'time/eval_s': wallSeconds,
  };
  for (const [domain, d] of Object.entries(m.byDomain ?? {})) {
    const key = domain.replace(/[^A-Za-z0-9_.-]/g, '_');
    out[`eval/${key}/pass@1`] = d.pass1;
    out[`eval/${key}/pass@${result.k}`] = d.passAtK;
    out[`eval/${key}/passed_${result.k}_of_${result.k}`] = d.tasks > 0 ? d.passedKK / d.tasks : 0;
  }
  return out;
}
