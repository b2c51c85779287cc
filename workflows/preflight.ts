import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { FailureType } from '../core/failure-types.js';
import {
  checkpointBytes,
  describeCheckpoints,
  describeUpdateMemory,
  exportBytesPerParameter,
  planUpdateMemory,
  trainedParameters,
} from '../infra/update-memory.js';
import type { UpdateConfig } from '../schemas/campaign.js';
import type { UpdateDescription } from '../schemas/training.js';
import type { GpuActivities } from './gpu.js';

export interface UpdatePreflightInput {
  gpuTaskQueue: string;
  update: Pick<
    UpdateConfig,
    'baseModel' | 'fsdp' | 'microBatchTokens' | 'microBatchSize' | 'packing' | 'retention' | 'checkpoints' | 'lora'
  >;
  /** The longest episode: the campaign's limits.maxContextTokens. */
  maxEpisodeTokens: number;
  steps: number;
  evaluateEvery: number;
}

export interface UpdatePreflightResult {
  description: UpdateDescription;
  /** What `finalstate campaign start` prints: per GPU, per node, and the checkpoints' bytes. */
  lines: string[];
}

/**
 * The memory preflight of a campaign's update (infra/update-memory.ts): the gpu worker describes its ranks and the
 * base model, and an update that will not fit is refused (a non-retryable UserError naming the numbers and the
 * setting to change) before anything runs. `finalstate campaign start` runs it, and so does the campaign before it
 * probes.
 */
export async function updatePreflight(input: UpdatePreflightInput): Promise<UpdatePreflightResult> {
  const gpu = proxyActivities<GpuActivities>({
    taskQueue: input.gpuTaskQueue,
    startToCloseTimeout: '5 minutes',
    retry: {
      maximumAttempts: 5,
      initialInterval: '2 seconds',
      nonRetryableErrorTypes: [FailureType.unusablePolicyUpdateInput],
    },
  });
  const description = await gpu.describeUpdate({ baseModel: input.update.baseModel });
  const { model, worker } = description;
  const { fsdp } = input.update;
  const plan = planUpdateMemory(model, worker, {
    activationCheckpointing: fsdp.activationCheckpointing,
    optimizerOffload: fsdp.optimizerOffload,
    exportDtype: fsdp.exportDtype,
    microBatchTokens: input.update.microBatchTokens,
    microBatchSize: input.update.microBatchSize,
    maxEpisodeTokens: input.maxEpisodeTokens,
    // Inputs recorded before these settings existed carry none: the schema's defaults.
    packing: input.update.packing ?? true,
    sequenceParallel: fsdp.sequenceParallel ?? 1,
    replicateAcrossNodes: fsdp.replicateAcrossNodes ?? false,
    ...(input.update.lora ? { lora: input.update.lora } : {}),
  });
  const bytes = checkpointBytes(
    trainedParameters(model, input.update.lora),
    exportBytesPerParameter(fsdp.exportDtype, worker.device),
    input.update.retention,
    input.steps,
    input.evaluateEvery,
    input.update.checkpoints?.every ?? 1,
  );
  const lines = [
    ...describeUpdateMemory(plan, model, worker),
    describeCheckpoints(bytes, input.update.retention, input.steps, input.update.checkpoints?.every ?? 1),
  ];
  if (plan.problems.length > 0)
    throw ApplicationFailure.create({
      type: FailureType.userError,
      nonRetryable: true,
      message: `the policy update will not fit:\n${plan.problems.map((p) => `  - ${p}`).join('\n')}\n${lines.join('\n')}`,
    });
  return { description, lines };
}
