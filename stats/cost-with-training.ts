import { ComputeCosts } from '../schemas/campaign.js';
import {
  roles,
  type PriceTable,
  type ResultSetSpend,
  type RoleUsage,
  type Spend,
  type StepSummary,
} from '../schemas/results.js';
import { usageCost } from './cost.js';
import { accurateSum } from './sum.js';

/** What a campaign spent to train, beside its evaluations. */
export interface TrainingSpend {
  /** The probe, the reference probe and every re-probe. */
  probe: Spend;
  /** Every GRPO step's rollouts, the groups replaced or refilled included. */
  rollouts: Spend;
  /** Steps with a summary, and their update and publish wall time (StepSummary.wallSeconds). */
  steps: number;
  updateSeconds: number;
  publishSeconds: number;
  compute: ComputeCosts;
}

export type ResultSetKind = 'probe' | 'rollouts' | 'evaluation' | 'other';

/**
 * The kind of one of a campaign's result sets and the step its name carries, by the names the workflows give them
 * (workflows/inputs.ts, workflows/grpo-step.ts): `<id>/probe`, `<id>/probe-reference` (step 0),
 * `<id>/reprobe-step-<n>`, `<id>/step-<n>`, `<id>/eval-step-<n>`.
 */
export function resultSetKind(campaignId: string, resultSet: string): { kind: ResultSetKind; step: number } {
  const name = resultSet.startsWith(`${campaignId}/`) ? resultSet.slice(campaignId.length + 1) : '';
  if (name === 'probe' || name === 'probe-reference') return { kind: 'probe', step: 0 };
  const [, prefix, step] = /^(reprobe-step|step|eval-step)-(\d+)$/.exec(name) ?? [];
  const kinds: Record<string, ResultSetKind> = { 'reprobe-step': 'probe', step: 'rollouts', 'eval-step': 'evaluation' };
  return prefix ? { kind: kinds[prefix]!, step: Number(step) } : { kind: 'other', step: 0 };
}

const noTokens = () => ({ inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 });

/** The sum of several spends. */
export function addSpends(spends: readonly Spend[]): Spend {
  const usage: RoleUsage = { agent: noTokens(), user: noTokens(), judge: noTokens() };
  for (const s of spends)
    for (const role of roles)
      for (const key of ['inputTokens', 'cachedInputTokens', 'outputTokens'] as const)
        usage[role][key] += s.usage[role][key];
  return {
    episodes: spends.reduce((n, s) => n + s.episodes, 0),
    costUsd: accurateSum(spends.map((s) => s.costUsd)),
    usage,
  };
}

/**
 * What the campaign spent to make the policy of step `upToStep` (default: every step): the probes that chose its pool
 * (the first probe, the reference probe, the re-probes after earlier steps), the rollouts and the update and publish
 * time of steps 1 to `upToStep`.
 */
export function trainingSpend(
  campaignId: string,
  sets: readonly ResultSetSpend[],
  steps: readonly StepSummary[],
  compute: ComputeCosts = ComputeCosts.parse({}),
  upToStep = Infinity,
): TrainingSpend {
  const of = (kind: ResultSetKind, made: (step: number) => boolean) =>
    addSpends(
      sets.filter((s) => {
        const set = resultSetKind(campaignId, s.resultSet);
        return set.kind === kind && made(set.step);
      }),
    );
  const trained = steps.filter((s) => s.step <= upToStep);
  return {
    probe: of('probe', (step) => step === 0 || step < upToStep),
    rollouts: of('rollouts', (step) => step <= upToStep),
    steps: trained.length,
    updateSeconds: accurateSum(trained.map((s) => s.wallSeconds?.update ?? 0)),
    publishSeconds: accurateSum(trained.map((s) => s.wallSeconds?.publish ?? 0)),
    compute,
  };
}

/** A spend at the inference price: its tokens priced with the table when given, else its rows' costUsd. */
export function spendUsd(spend: Spend, prices?: PriceTable): number {
  if (!prices) return spend.costUsd;
  return accurateSum(roles.map((role) => usageCost(spend.usage[role], prices.models[prices.roles[role]]!)));
}

/** The two costs per dependable task of one evaluated policy, with their parts. */
export interface CostWithTraining {
  /** The evaluation's episodes at the inference price (the reference's numerator). */
  evaluationUsd: number;
  probeUsd: number;
  rolloutsUsd: number;
  /** (update + publish seconds) / 3600 × gpus. */
  gpuHours: number;
  /** gpuHours × usdPerGpuHour. */
  computeUsd: number;
  usdPerGpuHour: number;
  gpus: number;
  /** Tasks the evaluated policy passed k/k; null before any evaluation. */
  dependableTasks: number | null;
  /** evaluationUsd ÷ dependableTasks: the reference's figure, inference only (null when no task passed k/k). */
  inferenceOnly: number | null;
  /** (evaluationUsd + probeUsd + rolloutsUsd + computeUsd) ÷ dependableTasks. */
  withTraining: number | null;
}

export const COST_WITH_TRAINING_FORMULA =
  '(evaluation + probe + training rollouts + (update s + publish s) / 3600 × GPUs × price per GPU-hour) ÷ tasks passed k/k, the episodes at the inference price';

/** The reference's cost per dependable task (inference only) and the one with the probe and the training in it. */
export function costWithTraining(
  evaluationUsd: number,
  dependableTasks: number | null,
  spend: TrainingSpend,
  prices?: PriceTable,
): CostWithTraining {
  const gpuHours = ((spend.updateSeconds + spend.publishSeconds) / 3600) * spend.compute.gpus;
  const probeUsd = spendUsd(spend.probe, prices);
  const rolloutsUsd = spendUsd(spend.rollouts, prices);
  const computeUsd = gpuHours * spend.compute.usdPerGpuHour;
  const per = (usd: number) => (dependableTasks ? usd / dependableTasks : null);
  return {
    evaluationUsd,
    probeUsd,
    rolloutsUsd,
    gpuHours,
    computeUsd,
    usdPerGpuHour: spend.compute.usdPerGpuHour,
    gpus: spend.compute.gpus,
    dependableTasks,
    inferenceOnly: per(evaluationUsd),
    withTraining: per(accurateSum([evaluationUsd, probeUsd, rolloutsUsd, computeUsd])),
  };
}
