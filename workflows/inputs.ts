import type { CampaignConfig, CampaignState } from '../schemas/campaign.js';
import type { PolicyServerRef } from '../schemas/clients.js';
import type { PolicyRef } from '../schemas/episode.js';
import type { EpisodeSettings, GrpoStepInput, TaskQueues } from '../schemas/pipeline.js';

export type CampaignConfigWithQueues = CampaignConfig & { taskQueues: TaskQueues };

/** The policy at a version: the served base policy pinned to the version its servers report (the oracle has none). */
export function policyAt(base: PolicyRef, version: string | undefined): PolicyRef {
  if (base.kind !== 'served' || version === undefined) return base;
  return { ...base, version };
}

/** What every episode of the campaign shares, for a given policy. */
export function episodeSettings(config: CampaignConfigWithQueues, policy: PolicyRef): EpisodeSettings {
  return {
    policy,
    user: config.user,
    ...(config.judge ? { judge: config.judge } : {}),
    limits: config.limits,
    retry: config.episodes,
    queues: config.taskQueues,
    seed: config.seed,
  };
}

/** Policy servers that load each checkpoint: the configured ones, else the served policy's own server. */
export function policyServersOf(config: CampaignConfig): PolicyServerRef[] {
  if (config.policyServers.length > 0 || config.policy.kind !== 'served') return config.policyServers;
  return [{ url: config.policy.client.baseUrl, kind: config.policy.client.serverKind }];
}

/** The input of GRPO step `step` of a campaign in state `state`. */
export function grpoStepInput(
  config: CampaignConfigWithQueues,
  state: Pick<CampaignState, 'pool' | 'sampler' | 'policyVersion'>,
  step: number,
): GrpoStepInput {
  return {
    campaignId: config.campaignId,
    step,
    taskSet: config.tasks.train.taskSet,
    pool: state.pool ?? [],
    sampler: state.sampler,
    groups: config.groupsPerStep,
    rollouts: config.rolloutsPerGroup,
    maxReplacementRounds: config.maxReplacementRounds,
    allowPartialUpdate: config.allowPartialUpdate,
    minInformativeGroups: config.minInformativeGroups ?? 1,
    ...(config.keepZeroVarianceGroups ? { keepZeroVarianceGroups: true } : {}),
    ...(config.extraGroupsInFlight > 0 ? { extraGroupsInFlight: config.extraGroupsInFlight } : {}),
    update: config.update,
    policyServers: policyServersOf(config),
    settings: episodeSettings(config, policyAt(config.policy, state.policyVersion)),
  };
}
