/**
 * The memory arithmetic of the sharded policy update (docs/deploy.md). A full-parameter AdamW update with fp32
 * master weights keeps, per parameter: the fp32 weight (4 bytes), its fp32 gradient (4) and AdamW's two fp32 moments
 * (8). FSDP2 shards all of it over the training GPUs; optimizer offload moves it to host memory.
 */
export const BYTES_PER_PARAMETER = 16;

export function shardedStateBytesPerGpu(
  parameters: number,
  gpus: number,
  options: { optimizerOffload?: boolean } = {},
): number {
  return options.optimizerOffload ? 0 : (BYTES_PER_PARAMETER * parameters) / gpus;
}

/**
 * What one GPU holds beyond its shard while a layer computes: that layer and the prefetched next one unsharded in
 * bf16 (2 bytes each), plus the layer's fp32 gradient before the reduce-scatter (4).
 */
export function gatheredLayerBytes(parametersPerLayer: number): number {
  return 2 * 2 * parametersPerLayer + 4 * parametersPerLayer;
}

/** fp32 logits, their log-softmax and its gradient for one micro-batch: the largest activation at a big vocabulary. */
export function logitBytes(tokensPerMicroBatch: number, vocabulary: number): number {
  return 3 * 4 * tokensPerMicroBatch * vocabulary;
}
