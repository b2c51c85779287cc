// The figures bench/cluster-sim.ts simulates with, each with where it comes from: the cluster's shape from the example
// preset, the update's bytes from docs/deploy.md, the storage rates from issue 34, the servers' speed from an H100's
// data sheet and a dense 27B model's shape. Every figure can be overridden on the command line.
import fs from 'node:fs';
import { ClusterPreset } from '../schemas/deploy.js';
import type { ClusterShape } from '../testkit/cluster-sim/simulation.js';
import type { ServerModel } from '../testkit/cluster-sim/rollout-server.js';

/** A number and the sentence that says where it comes from. */
export interface Sourced {
  value: number;
  source: string;
}

export interface ClusterFigures {
  shape: ClusterShape;
  shapeSource: string;
  /** GPUs of one rollout server (tensor-parallel size). */
  tensorParallel: number;
  trainingGpus: number;
  checkpointEvery: Sourced;
}

/** The shape of the campaign in a cluster preset (docs/examples/cluster.json by default). */
export function clusterFigures(file: string): ClusterFigures {
  const preset = ClusterPreset.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  const c = preset.campaign;
  const every = (c.update as { checkpoints?: { every?: number } }).checkpoints?.every;
  return {
    shape: {
      servers: preset.rolloutServers.count,
      groups: c.groupsPerStep,
      rollouts: c.rolloutsPerGroup,
      episodeSlots: preset.episodeWorkers.count * preset.episodeWorkers.concurrency,
      maxReplacementRounds: c.maxReplacementRounds,
      extraGroupsInFlight: c.extraGroupsInFlight,
    },
    shapeSource: `${file}: rolloutServers.count, groupsPerStep x rolloutsPerGroup, episodeWorkers count x concurrency, maxReplacementRounds, extraGroupsInFlight`,
    tensorParallel: preset.rolloutServers.gpusPerServer,
    trainingGpus: preset.gpuWorker.nnodes * preset.gpuWorker.nprocPerNode,
    checkpointEvery:
      every !== undefined
        ? { value: every, source: `${file}: campaign.update.checkpoints.every` }
        : { value: 1, source: 'the resumable state every step, as the update writes it today' },
  };
}

/** H100 SXM, from NVIDIA's data sheet: HBM3 bandwidth and dense bf16 throughput per GPU. */
const H100 = { hbmBytesPerS: 3.35e12, bf16FlopsPerS: 989e12 };
/** Assumed shares of the peak a well-tuned server reaches: memory reads, and matrix multiplies in decode and prefill. */
const EFFICIENCY = { bandwidth: 0.8, serving: 0.6 };
/**
 * KV cache bytes per token of a dense 27-32B model with grouped-query attention (Qwen3-32B: 64 layers, 8 KV heads of
 * 128, K and V in bf16): 2 x 64 x 8 x 128 x 2 bytes.
 */
const KV_BYTES_PER_TOKEN = 2 * 64 * 8 * 128 * 2;
/** docs/deploy.md, "Splitting GPUs": a serving GPU of the example holds 27 GB of weights and about 50 GB of KV cache. */
const KV_CACHE_GB_PER_GPU = 50;
/** vLLM's own time per decode iteration outside the GPU kernels (scheduling, sampling, tensor-parallel sync): assumed. */
const ITERATION_OVERHEAD_S = 0.003;

/** A rollout server of `tensorParallel` H100s serving a `params`-parameter bf16 model. */
export function serverModel(params: number, tensorParallel: number): { model: ServerModel; source: string } {
  const bandwidth = H100.hbmBytesPerS * EFFICIENCY.bandwidth * tensorParallel;
  const flops = H100.bf16FlopsPerS * EFFICIENCY.serving * tensorParallel;
  const model: ServerModel = {
    iterationOverheadS: ITERATION_OVERHEAD_S,
    weightsReadS: (2 * params) / bandwidth,
    kvReadPerContextTokenS: KV_BYTES_PER_TOKEN / bandwidth,
    computePerSequenceS: (2 * params) / flops,
    prefillTokensPerS: flops / (2 * params),
    kvCacheTokens: Math.floor((KV_CACHE_GB_PER_GPU * 1e9 * tensorParallel) / KV_BYTES_PER_TOKEN),
  };
  const ms = (s: number) => `${(s * 1e3).toFixed(1)} ms`;
  const us = (s: number) => `${(s * 1e6).toFixed(1)} us`;
  const ns = (s: number) => `${(s * 1e9).toFixed(1)} ns`;
  const source =
    `H100 SXM x ${tensorParallel} (tensor-parallel, from the preset): ${H100.hbmBytesPerS / 1e12} TB/s HBM at ` +
    `${EFFICIENCY.bandwidth * 100}%, ${H100.bf16FlopsPerS / 1e12} TFLOP/s bf16 at ${EFFICIENCY.serving * 100}% ` +
    `(assumed); per decode iteration ${ms(model.iterationOverheadS)} of overhead (assumed) + the longer of reading ` +
    `the bf16 weights (${ms(model.weightsReadS)}) and the KV cache (${KV_BYTES_PER_TOKEN / 1024} KiB, ` +
    `${ns(model.kvReadPerContextTokenS)} per context token of each sequence), or computing 2P FLOPs per sequence ` +
    `(${us(model.computePerSequenceS)} each); prefill ${Math.round(model.prefillTokensPerS)} tokens/s; ` +
    `KV cache ${KV_CACHE_GB_PER_GPU} GB per GPU (docs/deploy.md), ${model.kvCacheTokens} tokens a server`;
  return { model, source };
}

export interface UpdateFigures {
  /** Seconds of training compute per token of the batch. */
  computeSPerToken: number;
  stateWriteS: number;
  exportWriteS: number;
  publishS: number;
  sources: { update: string; publish: string };
}

/**
 * The stand-in update and publish: docs/deploy.md's bytes per parameter (resumable state 12, export 2), written and
 * read at issue 34's 1-3 GB/s (the middle by default), and the training compute of the batch's tokens.
 */
export function updateFigures(options: {
  params: number;
  trainingGpus: number;
  mfu: number;
  writeBytesPerS: number;
  readBytesPerS: number;
}): UpdateFigures {
  const { params, trainingGpus, mfu, writeBytesPerS, readBytesPerS } = options;
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(0)} GB`;
  const rate = (r: number) => `${r / 1e9} GB/s`;
  const stateBytes = 12 * params;
  const exportBytes = 2 * params;
  const figures = {
    computeSPerToken: (8 * params) / (trainingGpus * H100.bf16FlopsPerS * mfu),
    stateWriteS: stateBytes / writeBytesPerS,
    exportWriteS: exportBytes / writeBytesPerS,
    publishS: exportBytes / readBytesPerS,
  };
  return {
    ...figures,
    sources: {
      update:
        `training 8 x P FLOPs per batch token (forward and backward 6P, activation checkpointing's second forward 2P) ` +
        `on ${trainingGpus} H100s (the preset's gpuWorker) at ${mfu * 100}% MFU (assumed); the export ` +
        `(${gb(exportBytes)}, 2 bytes per parameter, docs/deploy.md "Checkpoints on disk") every step and the ` +
        `resumable state (${gb(stateBytes)}, 12 bytes per parameter) every checkpoint step, written at ` +
        `${rate(writeBytesPerS)} (issue 34: 1-3 GB/s; docs/deploy.md states no rate): ` +
        `${figures.exportWriteS.toFixed(0)} s + ${figures.stateWriteS.toFixed(0)} s`,
      publish: `each server reads the ${gb(exportBytes)} export at ${rate(readBytesPerS)} (issue 34's 1-3 GB/s)`,
    },
  };
}

/** docs/experiments.md: 76-84% of groups informative at the first and last step (run 5), 94% and 80% (run 7). */
export const INFORMATIVE_FRACTION: Sourced = {
  value: 0.8,
  source: 'docs/experiments.md, the mini demo: 76-84% (run 5) and 94%-80% (run 7) at the first and last step',
};
