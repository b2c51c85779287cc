import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ArtifactStore } from '../infra/artifacts.js';
import { InfrastructureError } from '../infra/errors.js';
import { FailureType } from '../infra/failure-types.js';
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
  version: number;
  servers: string[];
}

/** buildBatch and publishPolicy: the light activities between the episodes of a step and its policy update. */
export function createTrainingActivities({ artifacts, fetchImpl = fetch, publishTimeoutMs = 120_000 }: { artifacts: ArtifactStore; fetchImpl?: typeof fetch; publishTimeoutMs?: number }) {
  return {
    /**
     * The training batch (TrainingBatch of schemas/training.ts): each trainable episode's token trajectory with its
     * training reward (the 0/1 reward, less truncationPenalty when a turn was cut off at the token limit).
     */
    async buildBatch(input: BuildBatchInput): Promise<BuildBatchResult> {
      const episodes: unknown[] = [];
      let skipped = 0;
      let groups = 0;
      let truncatedTurns = 0;
      let maskedTokens = 0;
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
          episodes.push({ episodeId: e.episodeId, taskId: group.taskId, groupId: group.groupId, tokenIds: trajectory.tokenIds, lossMask: row.lossMask, rolloutLogprobs: row.rolloutLogprobs, reward: row.reward });
        }
      }
      if (episodes.length === 0) {
        throw ApplicationFailure.create({ type: FailureType.unusableBatch, nonRetryable: true, message: `step ${input.step}: no episode of the ${input.groups.length} groups has a trainable trajectory` });
      }
      const base = `${input.campaignId}/step-${input.step}`;
      const batchUri = await artifacts.put(`${base}/batch.json`, JSON.stringify({ episodes }));
      const checkpointDir = await artifacts.directoryOf(`${input.campaignId}/checkpoints`);
      return { batchUri, checkpointDir, groups, episodes: episodes.length, skippedEpisodes: skipped, truncatedTurns, maskedTokens };
    },

    /**
     * Every policy server loads the checkpoint (POST /admin/reload) and is polled (GET /v1/models) until it reports
     * the new version. A server that is down is an infrastructure failure: the activity is retried.
     */
    async publishPolicy(input: PublishPolicyInput): Promise<{ servers: Array<{ url: string; version: number }> }> {
      const context = Context.current();
      const reported: Array<{ url: string; version: number }> = [];
      for (const url of input.servers) {
        const root = url.replace(/\/+$/, '');
        await request(fetchImpl, `${root}/admin/reload`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ checkpoint: input.checkpointUri, version: input.version }) });
        const deadline = Date.now() + publishTimeoutMs;
        for (;;) {
          const models = (await request(fetchImpl, `${root}/v1/models`, { method: 'GET' })) as { data?: Array<{ policy_version?: number }>; policy_version?: number };
          const version = models.data?.[0]?.policy_version ?? models.policy_version;
          if (version === input.version) {
            reported.push({ url, version });
            break;
          }
          if (Date.now() > deadline) throw new InfrastructureError(`policy server ${url} still reports version ${version}, not ${input.version}, after ${publishTimeoutMs} ms`, 'policy-server');
          context.heartbeat({ url, version });
          await context.sleep(200);
        }
      }
      return { servers: reported };
    },
  };
}

async function request(fetchImpl: typeof fetch, url: string, init: RequestInit): Promise<unknown> {
  let res: Response;
  try {
    res = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new InfrastructureError(`policy server ${url}: ${(err as Error).message}`, 'policy-server', { cause: err });
  }
  const text = await res.text();
  if (res.status >= 400 && res.status < 500) {
    throw ApplicationFailure.create({ type: 'PolicyServerRejected', nonRetryable: true, message: `policy server ${url} answered ${res.status}: ${text.slice(0, 500)}` });
  }
  if (!res.ok) throw new InfrastructureError(`policy server ${url} answered ${res.status}: ${text.slice(0, 500)}`, 'policy-server');
  return JSON.parse(text) as unknown;
}
