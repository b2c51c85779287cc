/**
 * Failure types (ApplicationFailure.type) that activities raise and workflows tell apart. Plain constants, so the
 * workflow bundle can import them without the activity SDK. Exported as schemas/json/FailureType.schema.json
 * (schemas/failures.ts), which the Python workers read (python/finalstate/failure_types.py).
 */
export const FailureType = {
  /** A component was down: retried by the activity's retry policy, then the group is refilled. Never a task outcome. */
  infrastructure: 'Infrastructure',
  /** The task itself is unusable: not retried. */
  malformedTask: 'MalformedTask',
  /** Bad input from the user (config, task set, file): not retried. */
  userError: 'UserError',
  /** A GRPO step ran out of replacement rounds before it had enough informative groups. */
  shortOfInformativeGroups: 'ShortOfInformativeGroups',
  /** No episode of a step had a trainable trajectory. */
  unusableBatch: 'UnusableBatch',
  /** The policyUpdate input does not match its schema, or the campaign's checkpoints cannot continue it: not retried. */
  unusablePolicyUpdateInput: 'UnusablePolicyUpdateInput',
  /**
   * A rank of the sharded gpu worker died or a collective timed out mid-update: retried. The worker's ranks restart
   * together (torchrun) and the retry resumes from the last complete checkpoint.
   */
  gpuRankFailure: 'GpuRankFailure',
  /** A policy server refused a publish request (a 4xx, e.g. vLLM without its admin routes): not retried. */
  policyServerRejected: 'PolicyServerRejected',
  /**
   * The checkpoint to publish is not a complete model directory (a shard missing or truncated, no config, tensors
   * unlike the served model's): not retried, and no server is touched. The gpu worker writes checkpoints atomically,
   * so waiting does not complete one; remove it and replay the step.
   */
  incompleteCheckpoint: 'IncompleteCheckpoint',
  /**
   * The LoRA adapter to publish cannot be served: a target module its base model lacks, shapes unlike the model's,
   * or the servers refused the adapter itself (a rank above their --max-lora-rank, another base model, a file they
   * cannot deserialise) so that fewer than fleet.minServers could ever serve it. Not retried: waiting does not change
   * the adapter; the servers keep serving the adapters they had.
   */
  adapterRefused: 'AdapterRefused',
} as const;
