import fs from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { localPathOf, type ArtifactStore } from '../storage/artifacts.js';
import { TrainingBatchWriter } from '../storage/training-batch.js';
import { checkHfCheckpoint, IncompleteCheckpointError } from '../storage/hf-checkpoint.js';
import { checkLoraAdapter, IncompatibleAdapterError } from '../storage/lora-adapter.js';
import { FailureType } from '../core/failure-types.js';
import { failFastOnUserError } from './failures.js';
import { EndpointRequestError } from '../runtime/clients/errors.js';
import {
  defaultPublishOptions,
  publishCheckpoint,
  type PolicyCheckpoint,
  type PublishOptions,
  type Published,
  type PublishStep,
} from '../runtime/clients/policy-admin.js';
import { adminTokenOf } from '../runtime/clients/admin-token.js';
import { AdapterRefusedError, publishAdapter, type AdapterPublish } from '../runtime/clients/adapter-admin.js';
import type { PolicyServerRef } from '../schemas/clients.js';
import { SERVED_FINGERPRINT_FILE, type ServedFingerprints } from '../schemas/policy-api.js';
import { Trajectory } from '../schemas/trajectory.js';
import { trainingColumns, type TruncationOptions } from '../runtime/trajectory/truncation.js';

export interface BatchEpisode {
  episodeId: string;
  reward: 0 | 1;
  trajectoryUri?: string;
  trainable: boolean;
}

export interface BuildBatchInput extends TruncationOptions {
  campaignId: string;
  step: number;
  groups: Array<{ groupId: string; taskId: string; episodes: BatchEpisode[] }>;
}

export interface BuildBatchResult {
  batchUri: string;
  /** Where this campaign's checkpoints go unless the config names a directory. */
  checkpointDir: string;
  groups: number;
  episodes: number;
  /** Episodes left out: no trajectory, or drifted (trainable false). */
  skippedEpisodes: number;
  /** Turns in the batch that ended at the per-turn token limit. */
  truncatedTurns: number;
  /** Their loss tokens, taken out of the loss when maskTruncatedTurns is set (else 0). */
  maskedTokens: number;
}

export interface PublishPolicyInput {
  checkpointUri: string;
  /** The policy version, from the workflow (the step number): servers never choose it. */
  version: number;
  servers: PolicyServerRef[];
  /** The checkpoint the servers serve now: what a vLLM server whose reload fails is pointed back to. */
  previous?: { checkpointUri: string; version: number };
  /**
   * The fewest servers that must serve the new version (the campaign's fleet.minServers); the others are ejected.
   * Absent (inputs recorded before the fleet): every server.
   */
  minServers?: number;
  /**
   * A LoRA campaign's step: the checkpoint is an adapter, loaded beside the base model under the name
   * `<prefix><version>` without a pause (runtime/clients/adapter-admin.ts); `keepFrom` unloads the older ones.
   */
  adapter?: AdapterPublish;
}

/** A server whose publish failed: left out of the fleet until reconcileFleet publishes the current version to it. */
export interface EjectedServer {
  url: string;
  kind: PolicyServerRef['kind'];
  reason: string;
  /** It refused the adapter itself (AdapterRefusedError): asking again does not change its answer. */
  refused?: true;
}

export interface PublishPolicyResult {
  servers: Published[];
  ejected: EjectedServer[];
}

/** buildBatch and publishPolicy: the light activities between the episodes of a step and its policy update. */
export function createTrainingActivities({
  artifacts,
  publish = defaultPublishOptions,
  adminTokenFile,
}: {
  artifacts: ArtifactStore;
  publish?: PublishOptions;
  /** The stack's policy-server token file, read for a server whose ref names no token (admin-token.ts). */
  adminTokenFile?: string;
}) {
  return {
    /**
     * The training batch (TrainingBatch of schemas/training.ts): each trainable episode's token trajectory with its
     * training reward (the 0/1 reward, less truncationPenalty when a turn was cut off at the token limit).
     */
    async buildBatch(input: BuildBatchInput): Promise<BuildBatchResult> {
      const base = `${input.campaignId}/step-${input.step}`;
      const batch = await TrainingBatchWriter.create(await artifacts.directoryOf(base), 'batch');
      let skipped = 0;
      let groups = 0;
      let truncatedTurns = 0;
      let maskedTokens = 0;
      try {
        for (const group of input.groups) {
          const usable = group.episodes.filter((e) => e.trainable && e.trajectoryUri);
          skipped += group.episodes.length - usable.length;
          // A group with fewer than two usable episodes has no within-group advantage to learn from.
          if (usable.length < 2) {
            skipped += usable.length;
            continue;
          }
          groups += 1;
          for (const e of usable) {
            const trajectory = Trajectory.parse(JSON.parse((await artifacts.read(e.trajectoryUri!)).toString('utf8')));
            const row = trainingColumns(trajectory, e.reward, input);
            truncatedTurns += row.truncatedTurns;
            maskedTokens += row.maskedTokens;
            await batch.add({
              episodeId: e.episodeId,
              taskId: group.taskId,
              groupId: group.groupId,
              tokenIds: trajectory.tokenIds,
              lossMask: row.lossMask,
              rolloutLogprobs: row.rolloutLogprobs,
              rolloutVersions: row.rolloutVersions,
              reward: row.reward,
            });
          }
        }
        if (batch.size === 0) {
          throw ApplicationFailure.create({
            type: FailureType.unusableBatch,
            nonRetryable: true,
            message: `step ${input.step}: no episode of the ${input.groups.length} groups has a trainable trajectory`,
          });
        }
      } catch (err) {
        await batch.abort();
        throw err;
      }
      await batch.finish();
      const batchUri = artifacts.uriOf(`${base}/batch.json`);
      const checkpointDir = await artifacts.directoryOf(`${input.campaignId}/checkpoints`);
      return {
        batchUri,
        checkpointDir,
        groups,
        episodes: batch.size,
        skippedEpisodes: skipped,
        truncatedTurns,
        maskedTokens,
      };
    },

    /**
     * Every policy server loads the checkpoint through vLLM's admin routes (runtime/clients/policy-admin.ts), all at
     * once (each reads the same directory from shared storage), once the directory is known to be complete
     * (storage/hf-checkpoint.ts; else IncompleteCheckpoint, not retried, no server touched). Each server pauses with
     * mode=wait: its turns in flight finish on the old weights, the next ones wait for the new. A server that is down
     * or answers 5xx (retried inside each call) is ejected and reported with why, not the step: the episode workers
     * take it out when it serves a version the episodes do not accept, and reconcileFleet publishes the current
     * version to it once it answers. The activity fails (and is retried: publishing again is harmless) only when
     * fewer than `minServers` serve the new version. A vLLM server whose reload failed is pointed back to
     * `previous`, or left paused, never resumed on released weights. A 4xx, or a server of another kind than
     * configured, is a configuration mistake and is not retried. A LoRA adapter is checked before any server sees it
     * (storage/lora-adapter.ts: else IncompleteCheckpoint or AdapterRefused, not retried); a server that refuses the
     * adapter itself (runtime/clients/adapter-admin.ts) is ejected as one that will refuse it again, and when the
     * rest could never make up `minServers`, the activity fails as AdapterRefused, not retried (docs/reliability.md).
     * Heartbeats go out every few seconds, also while a long reload call is in flight.
     */
    async publishPolicy(input: PublishPolicyInput): Promise<PublishPolicyResult> {
      // A checkpoint URI the servers cannot read as a path (not file://) is the user's to fix: not retried.
      const weightsPath = await failFastOnUserError(async () => localPathOf(input.checkpointUri));
      // So is a token source the ref names but this worker cannot read.
      const tokens = await failFastOnUserError(async () =>
        input.servers.map((server) => adminTokenOf(server, adminTokenFile)),
      );
      const previous: PolicyCheckpoint | undefined = input.previous && {
        weightsPath: await failFastOnUserError(async () => localPathOf(input.previous!.checkpointUri)),
        version: input.previous.version,
      };
      // vLLM releases the weights it serves before it reads new ones: a directory it cannot load must never reach it.
      // An adapter is checked as closely (storage/lora-adapter.ts): the servers would refuse it, and waiting does not
      // change what is on disk.
      try {
        if (input.adapter) await checkLoraAdapter(weightsPath);
        else await checkHfCheckpoint(weightsPath, previous?.weightsPath);
      } catch (err) {
        if (err instanceof IncompatibleAdapterError)
          throw ApplicationFailure.create({
            type: FailureType.adapterRefused,
            nonRetryable: true,
            message: `not publishing policy version ${input.version}: ${err.message}. No server was touched; they serve the adapters they had. Check update.lora and update.baseModel against the model the servers serve, then replay the step.`,
            cause: err,
          });
        if (!(err instanceof IncompleteCheckpointError)) throw err;
        throw ApplicationFailure.create({
          type: FailureType.incompleteCheckpoint,
          nonRetryable: true,
          message: `not publishing policy version ${input.version}: ${err.message}. No server was touched; they serve the previous version. Remove the directory and replay the step (the update writes it again).`,
          cause: err,
        });
      }
      const outcomes = await publishToEach(input.servers, (server, index, onStep) => {
        const options = { ...publish, onStep, ...(tokens[index] && { token: tokens[index] }) };
        return input.adapter
          ? publishAdapter(server, weightsPath, input.version, input.adapter, options)
          : publishCheckpoint(server, weightsPath, input.version, options, previous);
      });
      const published: Published[] = [];
      const ejected: EjectedServer[] = [];
      for (const [index, outcome] of outcomes.entries()) {
        if (outcome.status === 'fulfilled') {
          published.push(outcome.value);
          continue;
        }
        const server = input.servers[index]!;
        const err = outcome.reason as Error;
        if (err instanceof EndpointRequestError) {
          throw ApplicationFailure.create({
            type: FailureType.policyServerRejected,
            nonRetryable: true,
            message: `publishing policy version ${input.version} to ${server.kind} server ${server.url}: ${err.message}`,
            cause: err,
          });
        }
        ejected.push({
          url: server.url,
          kind: server.kind,
          reason: err.message,
          ...(err instanceof AdapterRefusedError ? { refused: true } : {}),
        });
      }
      const minServers = input.minServers ?? input.servers.length;
      if (published.length < minServers) {
        const why = ejected.map((e) => `${e.url}: ${e.reason}`).join('; ');
        const shortfall = `policy version ${input.version} serves on ${published.length} of ${input.servers.length} rollout servers, fewer than fleet.minServers ${minServers}`;
        // Servers that refused the adapter itself refuse it again: when the others could not make up minServers
        // however often they are asked, fail now rather than retry for minutes.
        const mayCome = ejected.filter((e) => !e.refused).length;
        if (published.length + mayCome < minServers)
          throw ApplicationFailure.create({
            type: FailureType.adapterRefused,
            nonRetryable: true,
            message: `${shortfall}, and no retry can change that: ${ejected.length - mayCome} refused the adapter itself. ${why}`,
          });
        throw ApplicationFailure.create({ type: FailureType.infrastructure, message: `${shortfall}: ${why}` });
      }
      await writeFingerprints(weightsPath, input.version, published);
      return { servers: published, ejected };
    },
  };
}

/**
 * `publish` on every server at once, with heartbeats every few seconds (the step each server is at), also while a
 * long reload call is in flight; the outcome of each, in order.
 */
export async function publishToEach<S extends PolicyServerRef, T>(
  servers: readonly S[],
  publish: (server: S, index: number, onStep: (step: PublishStep) => void) => Promise<T>,
): Promise<Array<PromiseSettledResult<T>>> {
  const context = Context.current();
  const steps: Record<string, PublishStep> = {};
  const beat = setInterval(() => context.heartbeat(steps), 5_000);
  try {
    return await Promise.allSettled(
      servers.map((server, index) => publish(server, index, (step) => void (steps[server.url] = step))),
    );
  } finally {
    clearInterval(beat);
  }
}

/**
 * The vLLM servers' fingerprints of `version`, into its checkpoint directory (written whole, then renamed into place),
 * where the policy clients of the episodes that cannot read /weight_info find them (schemas/episode.ts: PolicyRef).
 */
async function writeFingerprints(checkpointDir: string, version: number, published: Published[]): Promise<void> {
  const servers = published.flatMap((p) => (p.fingerprint ? [{ url: p.url, fingerprint: p.fingerprint }] : []));
  if (servers.length === 0) return;
  const file = path.join(checkpointDir, SERVED_FINGERPRINT_FILE);
  const body: ServedFingerprints = { policyVersion: String(version), servers };
  await fs.writeFile(`${file}.${process.pid}.tmp`, `${JSON.stringify(body, null, 2)}\n`);
  await fs.rename(`${file}.${process.pid}.tmp`, file);
}
