import type {
  DescribeUpdateInput,
  PolicyUpdateInput,
  PolicyUpdateResult,
  UpdateDescription,
} from '../schemas/training.js';
import type { LogMetricsInput, LogMetricsResult } from '../schemas/tracking.js';

/**
 * The `policyUpdate` activity the Python gpu worker serves (python/finalstate/gpu_worker), called by name on the gpu
 * task queue, with the payloads of schemas/training.ts.
 */
export type PolicyUpdateCall = PolicyUpdateInput;
export type PolicyUpdateReply = PolicyUpdateResult;

export interface GpuActivities {
  policyUpdate(input: PolicyUpdateCall): Promise<PolicyUpdateReply>;
  /** The ranks, their memory and the base model's shape, for the memory preflight (workflows/preflight.ts). */
  describeUpdate(input: DescribeUpdateInput): Promise<UpdateDescription>;
}

/** The `logMetrics` activity the same Python worker serves (python/finalstate/tracking): scalars to the trackers. */
export interface TrackingActivities {
  logMetrics(input: LogMetricsInput): Promise<LogMetricsResult>;
}
