/**
 * Constants of the update's memory arithmetic (infra/update-memory.ts), exported (schemas/json/UpdateMemoryModel) so
 * that the Python trainer chunks its logits by the same figure and its tests check the same coefficients.
 */
export const UPDATE_MEMORY_MODEL = {
  /**
   * fp32 scratch of one chunk of logit rows in the trainer's log-prob head (python/finalstate/grpo/log_probs.py): at a
   * 152k vocabulary 441 positions, enough rows for the output layer's gradient matmul of each chunk to run at speed.
   */
  logitChunkBytes: 256 * 2 ** 20,
  /**
   * Bytes per token that one decoder layer keeps for its backward pass in bf16, as sums of coefficients times the
   * layer's widths: the hidden size, the MLP's intermediate size, the query width (heads x head dim), the key/value
   * width (kv heads x head dim) and the head count. Fitted on Qwen3 layers (RMSNorms in fp32, q/k norms, SDPA) by
   * python/tests/test_update_memory.py, which measures what autograd saves.
   */
  activationBytesPerToken: { hidden: 13, intermediate: 8, query: 13, keyValue: 11, heads: 8 },
  /** Models of at least this many parameters train with activation checkpointing when it is 'auto'. */
  autoCheckpointingParameters: 1e9,
} as const;
