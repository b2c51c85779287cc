import { ApplicationFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import { adapterPrefixOf, oldestUsableVersion } from '../core/policy-versions.js';
import { FailureType } from '../core/failure-types.js';
import type { ChildProgress } from '../schemas/campaign.js';
import type { GrpoStepInput, GrpoStepResult } from '../schemas/pipeline.js';
import { EpisodeAuditTrail } from './audit.js';
import { asyncPartOf, StepExchange } from './async-exchange.js';
import { progressQuery } from './definitions.js';
import type { GpuActivities } from './gpu.js';
import type { StepSummary } from '../schemas/results.js';
import type { PolicyUpdateResult } from '../schemas/training.js';
import { stepReconcile, whileReconcilingFleet } from './fleet.js';
import { collectGroups, groupEpisodeId, type CollectedGroups } from './groups.js';

const control = proxyActivities<ControlActivities>({
  startToCloseTimeout: '10 minutes',
  retry: {
    maximumAttempts: 10,
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [FailureType.userError, FailureType.unusableBatch],
  },
});
const publisher = proxyActivities<ControlActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 10, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

/**
 * One GRPO step: collect G usable groups of K episodes on tasks drawn from the frozen pool (zero-variance groups
 * replaced, groups lost to infrastructure refilled, as a stream: see collectGroups), then train on them: buildBatch,
 * policyUpdate on the gpu queue, publishPolicy.
 *
 * Asynchronous steps (input.async, workflows/async-exchange.ts): the step drops groups with a turn older than its window, tells the campaign
 * once its rollouts are collected (the next step may start collecting), and, when the previous step was still
 * training at its start, waits for the campaign's previousStepDone before its own update.
 */
export async function grpoStep(input: GrpoStepInput): Promise<GrpoStepResult> {
  const progress: ChildProgress = {
    kind: 'grpoStep',
    planned: 0,
    done: 0,
    inFlight: 0,
    infraFailed: 0,
    unit: 'groups',
    finished: 0,
    total: input.groups,
    startedAt: Date.now(),
  };
  setHandler(progressQuery, () => progress);
  const asyncPart = asyncPartOf(input);
  const exchange = asyncPart ? new StepExchange(asyncPart) : undefined;
  // Workflow time (Date.now() is deterministic here): the start of each phase, for the step summary's wall times.
  const started = Date.now();
  const resultSet = `${input.campaignId}/step-${input.step}`;
  const collected = await whileReconcilingFleet(
    stepReconcile(input),
    collectGroups(input, resultSet, progress, new EpisodeAuditTrail(progress)),
  );
  requireEnoughGroups(input, collected);
  const rolloutsDone = Date.now();
  await exchange?.rolloutsCollected(input.step, collected.sampler);
  const trainInput = exchange?.trainInput(input) ?? input;
  return trainAndPublish(trainInput, resultSet, collected, progress, { started, rolloutsDone, trainFrom: Date.now() });
}

/** The update's off-policy figures that a step summary carries as they are. */
const OFF_POLICY_FIGURES = [
  'stalenessMean',
  'stalenessMax',
  'samplerDriftMean',
  'samplerDriftMax',
  'isWeightMean',
  'isWeightMax',
  'isTruncatedFraction',
] as const satisfies ReadonlyArray<keyof StepSummary & keyof PolicyUpdateResult['metrics']>;

/** The update's staleness, sampler drift and importance weights, when it measured them (schemas/training.ts). */
function offPolicyFigures({ metrics, stalenessHistogram }: PolicyUpdateResult) {
  const figures: Partial<StepSummary> = {};
  for (const key of OFF_POLICY_FIGURES) if (metrics[key] !== undefined) figures[key] = metrics[key];
  return stalenessHistogram ? { ...figures, stalenessHistogram } : figures;
}

function requireEnoughGroups(input: GrpoStepInput, c: CollectedGroups): void {
  const minimum = input.allowPartialUpdate ? input.minInformativeGroups : input.groups;
  if (c.used.length >= minimum) return;
  const malformed = c.malformed.length ? `, malformed tasks ${c.malformed.join(', ')}` : '';
  throw ApplicationFailure.create({
    type: FailureType.shortOfInformativeGroups,
    nonRetryable: true,
    message: `step ${input.step}: ${c.informative} informative groups of ${input.groups} after ${input.maxReplacementRounds} replacement rounds (${c.zeroVariance} zero-variance, ${c.infraGroups} lost to infrastructure failures${malformed})`,
    details: [
      { step: input.step, informative: c.informative, zeroVariance: c.zeroVariance, infraGroups: c.infraGroups },
    ],
  });
}

async function trainAndPublish(
  input: GrpoStepInput,
  resultSet: string,
  c: CollectedGroups,
  progress: ChildProgress,
  times: { started: number; rolloutsDone: number; trainFrom: number },
): Promise<GrpoStepResult> {
  const { campaignId, step, settings } = input;
  const asyncPart = asyncPartOf(input);
  const batch = await control.buildBatch({
    campaignId,
    step,
    groups: c.used.map((g) => ({
      groupId: `g${g.group}`,
      taskId: g.taskId,
      episodes: g.outcomes.map((o, trial) => ({
        episodeId: groupEpisodeId(resultSet, g.group, trial),
        reward: o.reward,
        trainable: o.trainable,
        ...(o.trajectoryUri ? { trajectoryUri: o.trajectoryUri } : {}),
      })),
    })),
    maskTruncatedTurns: input.update.maskTruncatedTurns,
    truncationPenalty: input.update.truncationPenalty,
  });
  const batchDone = Date.now();
  const gpu = proxyActivities<GpuActivities>({
    taskQueue: settings.queues.gpu,
    startToCloseTimeout: input.update.timeout,
    // Inputs recorded before the key existed carry none: they keep the old fixed timeout.
    heartbeatTimeout: input.update.heartbeatTimeout ?? '5 minutes',
    retry: { maximumAttempts: 3, initialInterval: '10 seconds', backoffCoefficient: 2 },
  });
  // The trainer's settings are `update` but for what shapes the batch (buildBatch, above) and the activity's
  // timeouts: each goes to the payload under its own key (PolicyUpdateInput). A key an older input lacks is left out
  // (the schema's default applies), as is `lora` in full fine-tuning: JSON drops undefined.
  const {
    maskTruncatedTurns: _mask,
    truncationPenalty: _penalty,
    timeout: _timeout,
    heartbeatTimeout: _heartbeat,
    checkpointDir,
    ...trainerSettings
  } = input.update;
  const update = await gpu.policyUpdate({
    ...trainerSettings,
    campaignId,
    step,
    batchUri: batch.batchUri,
    checkpointDir: checkpointDir ?? batch.checkpointDir,
    seed: settings.seed >>> 0,
    neededExports: input.neededExports ?? [],
  });
  const updateDone = Date.now();
  // What a server whose reload fails is pointed back to: the weights it served during this step's rollouts.
  const previous = step === 1 ? input.update.baseModel : input.previousCheckpointUri;
  if (input.policyServers.length > 0)
    await publisher.publishPolicy({
      checkpointUri: update.checkpointUri,
      version: step,
      servers: input.policyServers,
      ...(previous ? { previous: { checkpointUri: previous, version: step - 1 } } : {}),
      ...(input.fleet ? { minServers: input.fleet.minServers } : {}),
      // LoRA: the step's adapter beside the base model; the older ones no episode can still use are unloaded.
      ...(input.update.lora
        ? {
            adapter: {
              prefix: adapterPrefixOf(campaignId),
              keepFrom: oldestUsableVersion(step + 1, asyncPart?.maxStaleness ?? 0),
            },
          }
        : {}),
    });
  const finished = Date.now();
  return stepResult(input, c, progress, batch, update, {
    ...times,
    batchDone,
    updateDone,
    finished,
  });
}

/** What the step reports: its summary (rewards, update figures, wall times) and what the campaign records of it. */
function stepResult(
  input: GrpoStepInput,
  c: CollectedGroups,
  progress: ChildProgress,
  batch: { batchUri: string; truncatedTurns: number; maskedTokens: number },
  update: PolicyUpdateResult,
  times: {
    started: number;
    rolloutsDone: number;
    trainFrom: number;
    batchDone: number;
    updateDone: number;
    finished: number;
  },
): GrpoStepResult {
  const { step } = input;
  const asyncPart = asyncPartOf(input);
  const { started, rolloutsDone, trainFrom, batchDone, updateDone, finished } = times;
  const seconds = (from: number, to: number) => (to - from) / 1000;

  const scoredGroups = c.informative + c.zeroVariance;
  const policyVersion = String(step);
  return {
    summary: {
      step,
      meanReward: c.scoredEpisodes > 0 ? c.rewardSum / c.scoredEpisodes : 0,
      informativeFraction: scoredGroups > 0 ? c.informative / scoredGroups : 0,
      loss: update.metrics.loss,
      clipFraction: update.metrics.clipFraction,
      optimizerSteps: update.metrics.optimizerSteps,
      truncatedTurns: batch.truncatedTurns,
      maskedTokens: batch.maskedTokens,
      replacements: c.replacements,
      infraFailures: progress.infraFailed,
      refills: c.refills,
      approxKl: update.metrics.approxKl,
      tokens: update.metrics.tokens,
      ...offPolicyFigures(update),
      wallSeconds: {
        rollouts: seconds(started, rolloutsDone),
        ...(asyncPart ? { waitForPrevious: seconds(rolloutsDone, trainFrom) } : {}),
        batch: seconds(trainFrom, batchDone),
        update: seconds(batchDone, updateDone),
        publish: seconds(updateDone, finished),
        total: seconds(started, finished),
      },
      policyVersion,
      ...(asyncPart ? { staleGroups: c.staleGroups, maxStaleness: asyncPart.maxStaleness } : {}),
    },
    rewards: c.used.map((g) => g.outcomes.map((o) => o.reward)),
    groupsUsed: c.used.length,
    zeroVarianceGroups: c.zeroVariance,
    replacements: c.replacements,
    refills: c.refills,
    ...(c.cancelled > 0 ? { cancelledGroups: c.cancelled } : {}),
    malformed: c.malformed,
    ...(asyncPart ? { staleGroups: c.staleGroups, staleByTask: c.staleByTask } : {}),
    episodes: { done: progress.done, infraFailed: progress.infraFailed },
    updateMetrics: update.metrics,
    batchUri: batch.batchUri,
    checkpointUri: update.checkpointUri,
    policyVersion,
    sampler: c.sampler,
    costUsd: c.costUsd,
  };
}
