import type { CampaignState } from '../schemas/campaign.js';
import type { LoadedConfig } from '../schemas/config.js';
import { costWithTraining, trainingSpend, type CostWithTraining } from '../stats/cost-with-training.js';
import { campaignSpend } from '../storage/results.js';
import { controlPool } from '../workers/stores.js';

/** What `finalstate campaign status` shows of a campaign's cost, from its result rows and step summaries. */
export interface CampaignCost {
  /** What the probe and the training spent so far (no dependable tasks: dependableTasks null). */
  spent: CostWithTraining;
  /** The latest evaluation of a trained policy, when it is the campaign's latest evaluation: its two figures. */
  evaluated: (CostWithTraining & { step: number; tasks: number }) | null;
}

export async function campaignCost(config: LoadedConfig, id: string, state: CampaignState): Promise<CampaignCost> {
  const pool = controlPool(config, 1);
  try {
    const sets = await campaignSpend(pool, id);
    const spent = costWithTraining(0, null, trainingSpend(id, sets, state.steps, state.costs));
    const last = state.lastMetrics;
    const evaluation = last && last.step! > 0 ? state.evalResultSets.find((e) => e.step === last.step) : undefined;
    if (!last || !evaluation) return { spent, evaluated: null };
    const evaluationUsd = sets.find((s) => s.resultSet === evaluation.resultSet)?.costUsd ?? 0;
    const spend = trainingSpend(id, sets, state.steps, state.costs, evaluation.step);
    return {
      spent,
      evaluated: {
        ...costWithTraining(evaluationUsd, last.passedKK!, spend),
        step: evaluation.step,
        tasks: last.tasks!,
      },
    };
  } finally {
    await pool.end();
  }
}

const dollars = (x: number | null) => (x === null ? '—' : `$${x.toFixed(4)}`);

/** The status lines: what was spent, and the two costs per dependable task of the latest trained evaluation. */
export function campaignCostLines(cost: CampaignCost): string[] {
  const s = cost.spent;
  const lines = [
    `  spent     probe ${dollars(s.probeUsd)}, rollouts ${dollars(s.rolloutsUsd)}, update and publish ${s.gpuHours.toFixed(4)} GPU-hours at ${dollars(s.usdPerGpuHour)} = ${dollars(s.computeUsd)}`,
  ];
  const e = cost.evaluated;
  if (e)
    lines.push(
      `  per task  passed k/k at step ${e.step} (${e.dependableTasks} of ${e.tasks}): ${dollars(e.inferenceOnly)} inference only, ${dollars(e.withTraining)} with the probe and the training`,
      `            = (evaluation ${dollars(e.evaluationUsd)} + probe ${dollars(e.probeUsd)} + rollouts ${dollars(e.rolloutsUsd)} + update and publish ${dollars(e.computeUsd)}, steps 1-${e.step}) ÷ ${e.dependableTasks}`,
    );
  return lines;
}
