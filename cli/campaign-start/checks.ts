import fs from 'node:fs';
import { ApplicationFailure, TimeoutFailure, WorkflowFailedError, type Client } from '@temporalio/client';
import { UserError } from '../../core/errors.js';
import { FailureType } from '../../core/failure-types.js';
import { serversBelowRank } from '../../runtime/clients/adapter-admin.js';
import { defaultPublishOptions } from '../../runtime/clients/policy-admin.js';
import type { CampaignConfig } from '../../schemas/campaign.js';
import type { LoadedConfig } from '../../schemas/config.js';
import { resolveTrackingDirs } from '../../workers/tracking-dirs.js';
import { policyServersOf, preflightInput, type CampaignConfigWithQueues } from '../../workflows/inputs.js';
import { updatePreflight } from '../../workflows/preflight.js';
import { campaignToolSets, checkModel, describeCheck } from '../model/model-check.js';
import { measureSpeed, planWaits, serversShorterThan, type ServingSpeed } from './serving-plan.js';

/** A campaign config as it starts on this stack: its task queues and tracking folders filled in. */
export function withStack(config: LoadedConfig, campaignConfig: CampaignConfig): CampaignConfigWithQueues {
  return {
    ...campaignConfig,
    taskQueues: campaignConfig.taskQueues ?? config.taskQueues,
    tracking: resolveTrackingDirs(campaignConfig.tracking, config.dataPath),
  };
}

/**
 * What `campaign start` checks before anything runs, each failure a UserError naming the campaign: the base model
 * (its chat format, which the campaign then runs with), the rollout servers' context length, the episode waits at
 * the servers' measured speed (filled in where the config derives them), a LoRA rank the servers can serve. Returns
 * the config to start.
 */
export async function checkBeforeStart(
  config: LoadedConfig,
  campaignConfig: CampaignConfig,
  options: { file: string; modelCheck: boolean; log: (line: string) => void },
): Promise<CampaignConfig> {
  let parsed = campaignConfig;
  const refuse = (problems: string[]) => {
    if (problems.length > 0) throw new UserError(`campaign ${parsed.campaignId}: ${problems.join('; ')}`);
  };
  if (options.modelCheck) {
    const served = parsed.policy.kind === 'served' ? parsed.policy.client : undefined;
    const checked = await checkModel(config, parsed.update.baseModel, {
      ...(served?.family !== undefined ? { family: served.family } : {}),
      toolSets: await campaignToolSets([parsed.tasks.train, parsed.tasks.eval]),
    });
    if (served) {
      served.family = checked.family;
      served.controlTokens ??= checked.report.addedTokens;
    }
    options.log(describeCheck(checked));
  }
  refuse(await serversShorterThan(policyServersOf(parsed), parsed.limits.maxContextTokens));
  const speed = parsed.fleet.servingSpeed ?? (await measuredSpeed(parsed));
  if (speed) {
    const planned = planWaits(parsed, JSON.parse(fs.readFileSync(options.file, 'utf8')) as unknown, speed);
    refuse(planned.problems);
    parsed = planned.config;
    options.log(
      `episode waits at ${Math.round(speed.prefillTokensPerSecond)} prompt and ${Math.round(speed.decodeTokensPerSecond)} sampled tokens/s a request: a policy call up to ${Math.round(planned.waits.perCallMs / 1000)} s, an attempt up to ${Math.round(planned.waits.attemptMs / 1000)} s${planned.derived.length ? `; derived ${planned.derived.join(', ')}` : ''}`,
    );
  }
  // A LoRA campaign's adapters must fit its servers: caught here where a server reports its maximum rank.
  if (parsed.update.lora)
    refuse(await serversBelowRank(policyServersOf(parsed), parsed.update.lora.rank, defaultPublishOptions));
  return parsed;
}

/**
 * The memory preflight (workflows/preflight.ts) of a campaign about to start: the lines to print, or null when no gpu
 * worker answered within `waitMs` (the campaign then runs it before it probes). An update that will not fit is a
 * UserError carrying the preflight's numbers.
 */
export async function memoryPreflight(
  client: Client,
  config: LoadedConfig,
  campaignConfig: CampaignConfig,
  waitMs = 60_000,
): Promise<string[] | null> {
  const full = withStack(config, campaignConfig);
  try {
    const result = await client.workflow.execute(updatePreflight, {
      taskQueue: full.taskQueues.control,
      workflowId: `${campaignConfig.campaignId}/start-preflight`,
      args: [preflightInput(full)],
      workflowExecutionTimeout: waitMs,
    });
    return result.lines;
  } catch (err) {
    const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === FailureType.userError)
      throw new UserError(`campaign ${campaignConfig.campaignId}: ${cause.message}`);
    if (cause instanceof TimeoutFailure) return null;
    throw err;
  }
}

/** One request's speed on the first rollout server that answers, or undefined (the waits stay as configured). */
async function measuredSpeed(config: CampaignConfig): Promise<ServingSpeed | undefined> {
  if (config.policy.kind !== 'served') return undefined;
  for (const server of policyServersOf(config)) {
    const speed = await measureSpeed(server, config.policy.client.model).catch(() => undefined);
    if (speed) return speed;
  }
  return undefined;
}
