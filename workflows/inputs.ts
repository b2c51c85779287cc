import { adapterPrefixOf, oldestUsableVersion, versionNumber } from '../core/policy-versions.js';
import type { CampaignConfig, CampaignState, EpisodeCounts, SamplerState } from '../schemas/campaign.js';
import type { PolicyServerRef } from '../schemas/clients.js';
import type { PolicyRef } from '../schemas/episode.js';
import type { EpisodeSettings, EvaluationInput, GrpoStepInput, ProbeInput, TaskQueues } from '../schemas/pipeline.js';
import type { UpdatePreflightInput } from './preflight.js';

export type CampaignConfigWithQueues = CampaignConfig & { taskQueues: TaskQueues };

/**
 * The policy at a version: the served base policy pinned to the version its servers report (the oracle has none),
 * and the checkpoint it was published from (beside which the publisher left the version's fingerprint).
 */
export function policyAt(base: PolicyRef, state: Pick<CampaignState, 'policyVersion' | 'checkpointUri'>): PolicyRef {
  const version = state.policyVersion;
  if (base.kind !== 'served' || version === undefined) return base;
  return {
    ...base,
    version,
    ...(state.checkpointUri ? { checkpointUri: state.checkpointUri } : {}),
  };
}

/** What every episode of the campaign shares, for a given policy (a served one routed to the campaign's fleet). */
export function episodeSettings(config: CampaignConfigWithQueues, policy: PolicyRef): EpisodeSettings {
  return {
    policy:
      policy.kind === 'served'
        ? {
            ...policy,
            servers: policyServersOf(config).map(({ url, kind }) => ({ url, kind })),
            ...(config.update.lora ? { adapterPrefix: adapterPrefixOf(config.campaignId) } : {}),
          }
        : policy,
    user: config.user,
    ...(config.judge ? { judge: config.judge } : {}),
    limits: config.limits,
    retry: config.episodes,
    queues: config.taskQueues,
    seed: config.seed,
  };
}

/**
 * The rollout fleet, which serves the episodes and loads each checkpoint: the configured servers, else the served
 * policy's own server, whose admin routes take the client's API key when it has one (vLLM's --api-key).
 */
export function policyServersOf(config: CampaignConfig): PolicyServerRef[] {
  if (config.policyServers !== undefined) return config.policyServers;
  if (config.policy.kind !== 'served') return [];
  const { baseUrl, serverKind, apiKeyEnv } = config.policy.client;
  return [{ url: baseUrl, kind: serverKind, ...(apiKeyEnv ? { tokenEnv: apiKeyEnv } : {}) }];
}

/**
 * Steps whose exports the campaign still needs when step `step` runs: the served policy's (the previous step) and
 * every evaluated step's (every evaluation.everySteps, and those evaluated at a stop).
 */
export function neededExports(
  config: CampaignConfig,
  state: Partial<Pick<CampaignState, 'evalResultSets'>>,
  step: number,
): number[] {
  const evaluated = (state.evalResultSets ?? []).map((e) => e.step);
  const needed = new Set<number>(evaluated.filter((s) => s > 0 && s < step));
  if (step > 1) needed.add(step - 1);
  for (let s = config.evaluation.everySteps; s < step; s += config.evaluation.everySteps) needed.add(s);
  return [...needed].sort((a, b) => a - b);
}

/** The input of GRPO step `step` of a campaign in state `state`. */
export function grpoStepInput(
  config: CampaignConfigWithQueues,
  state: Pick<CampaignState, 'pool' | 'sampler' | 'policyVersion' | 'checkpointUri'> &
    Partial<Pick<CampaignState, 'evalResultSets'>>,
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
    neededExports: neededExports(config, state, step),
    policyServers: policyServersOf(config),
    fleet: config.fleet,
    ...(state.checkpointUri ? { previousCheckpointUri: state.checkpointUri } : {}),
    settings: episodeSettings(config, policyAt(config.policy, state)),
  };
}

/** campaign.async.maxStaleness; 0 for a config recorded before the key existed (a history replayed). */
export const maxStalenessOf = (config: CampaignConfig): number => config.async?.maxStaleness ?? 0;

/**
 * The input of step `step` of an asynchronous campaign (async.maxStaleness K >= 1), started while the steps before it
 * may still be training: it draws from `sampler` (where the previous step's draws ended), and its episodes accept any
 * policy version in its window [step - 1 - K, step - 1] (core/policy-versions.ts), since the versions before it may
 * be published while they run; the checkpoint is the newest one published so far.
 */
export function asyncStepInput(
  config: CampaignConfigWithQueues,
  state: Parameters<typeof grpoStepInput>[1],
  step: number,
  { sampler, awaitPrevious }: { sampler: SamplerState; awaitPrevious: boolean },
): GrpoStepInput {
  const maxStaleness = maxStalenessOf(config);
  const minVersion = oldestUsableVersion(step, maxStaleness);
  const input = grpoStepInput(config, { ...state, sampler }, step);
  const { loss } = input.update;
  const update = {
    ...input.update,
    loss: { ...loss, offPolicyCorrection: loss.offPolicyCorrection ?? ('tis' as const) },
  };
  const { policy } = input.settings;
  const windowed: PolicyRef =
    policy.kind === 'served' && step > 1
      ? { ...policy, version: String(step - 1), minVersion: String(minVersion) }
      : policy;
  return {
    ...input,
    update,
    async: { maxStaleness, minVersion, publishedVersion: versionNumber(state.policyVersion), awaitPrevious },
    settings: { ...input.settings, policy: windowed },
  };
}

/** The input of the memory preflight the campaign runs before it probes (workflows/preflight.ts). */
export function preflightInput(config: CampaignConfigWithQueues): UpdatePreflightInput {
  return {
    gpuTaskQueue: config.taskQueues.gpu,
    update: config.update,
    maxEpisodeTokens: config.limits.maxContextTokens,
    steps: config.steps,
    evaluateEvery: config.evaluation.everySteps,
  };
}

/** The input of the campaign's probe child: the base policy on the training source. */
export function probeInput(config: CampaignConfigWithQueues): ProbeInput {
  return {
    campaignId: config.campaignId,
    resultSet: `${config.campaignId}/probe`,
    source: config.tasks.train,
    n: config.probing.n,
    nMax: config.probing.nMax,
    adaptive: config.probing.adaptive,
    threshold: config.probing.threshold,
    edges: config.selection.edges,
    window: config.probing.window,
    episodesPerRun: config.episodesPerChildRun,
    settings: episodeSettings(config, config.policy),
  };
}

/** The input of the reference probe (referenceProbe): the reference policy on the same candidates, a fixed n. */
export function referenceProbeInput(config: CampaignConfigWithQueues): ProbeInput | null {
  const reference = config.referenceProbe;
  if (!reference) return null;
  return {
    ...probeInput(config),
    resultSet: `${config.campaignId}/probe-reference`,
    n: reference.n,
    nMax: reference.n,
    adaptive: false,
    settings: episodeSettings(config, { kind: 'chat', endpoint: reference.endpoint }),
  };
}

/**
 * The input of the re-probe after step `step`: every candidate of the training source again, with that step's policy,
 * a fixed `reprobe.n` (default probing.n) episodes each.
 */
export function reprobeInput(
  config: CampaignConfigWithQueues,
  state: Pick<CampaignState, 'policyVersion' | 'checkpointUri'>,
  step: number,
): ProbeInput {
  const n = config.reprobe?.n ?? config.probing.n;
  return {
    ...probeInput(config),
    resultSet: `${config.campaignId}/reprobe-step-${step}`,
    step,
    n,
    nMax: n,
    adaptive: false,
    settings: episodeSettings(config, policyAt(config.policy, state)),
  };
}

/** The input of the evaluation child after step `step` (0: the base policy), on the evaluation source. */
export function evaluationInput(
  config: CampaignConfigWithQueues,
  state: Pick<CampaignState, 'policyVersion' | 'checkpointUri' | 'trainingDomains'>,
  step: number,
): EvaluationInput {
  return {
    campaignId: config.campaignId,
    resultSet: `${config.campaignId}/eval-step-${step}`,
    step,
    source: config.tasks.eval,
    k: config.evaluation.k,
    window: config.evaluation.window,
    episodesPerRun: config.episodesPerChildRun,
    ...(state.trainingDomains ? { trainingDomains: state.trainingDomains } : {}),
    settings: episodeSettings(config, policyAt(config.policy, state)),
  };
}

/** Add a child's episodes and cost to the campaign's totals. */
export function addChildTotals(
  state: Pick<CampaignState, 'episodes' | 'costUsd'>,
  child: { episodes: EpisodeCounts; costUsd: number },
): void {
  state.episodes = {
    done: state.episodes.done + child.episodes.done,
    infraFailed: state.episodes.infraFailed + child.episodes.infraFailed,
  };
  state.costUsd += child.costUsd;
}
