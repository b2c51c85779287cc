/**
 * The `policyUpdate` activity the Python gpu worker serves (python/finalstate/gpu_worker), called by name on the gpu
 * task queue. Its payloads are PolicyUpdateInput / PolicyUpdateResult of schemas/training.ts; this is the subset
 * the pipeline fills and reads.
 */
export interface PolicyUpdateCall {
  campaignId: string;
  step: number;
  batchUri: string;
  checkpointDir: string;
  baseModel: string;
  optimizer: Record<string, unknown>;
  loss: Record<string, unknown>;
  microBatchSize: number;
  seed: number;
}

export interface PolicyUpdateReply {
  checkpointUri: string;
  step: number;
  reused: boolean;
  metrics: { loss: number; clipFraction: number } & Record<string, number>;
}

export interface GpuActivities {
  policyUpdate(input: PolicyUpdateCall): Promise<PolicyUpdateReply>;
}
