import fs from 'node:fs';
import {
  ApplicationFailure,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { resolveTrackingDirs } from '../../workers/tracking-dirs.js';
import { UserError } from '../../core/errors.js';
import { FailureType } from '../../core/failure-types.js';
import { readJsonConfig } from '../../workers/json-config.js';
import { workflowUrl } from '../../infra/stack/temporal.js';
import { connectClient } from '../../workers/temporal-client.js';
import { CampaignConfig, type CampaignStatus, type ChildProgress } from '../../schemas/campaign.js';
import { campaign, statusOf, type CampaignResult } from '../../workflows/campaign/index.js';
import {
  pauseSignal,
  progressQuery,
  replayStepUpdate,
  resumeSignal,
  setMaxStepsUpdate,
  statusQuery,
  stopAfterStepSignal,
} from '../../workflows/definitions.js';
import { CampaignIdKey, StepKey } from '../../workflows/search-attributes.js';
import { campaignToolSets, checkModel, describeCheck } from '../model/model-check.js';
import { policyServersOf, preflightInput, type CampaignConfigWithQueues } from '../../workflows/inputs.js';
import { serversBelowRank } from '../../runtime/clients/adapter-admin.js';
import { measureSpeed, planWaits, serversShorterThan, type ServingSpeed } from '../../runtime/fleet/serving-plan.js';
import { defaultPublishOptions } from '../../runtime/clients/policy-admin.js';
import { updatePreflight } from '../../workflows/preflight.js';
import { parse, printJson, type Command } from '../command.js';
import { integerOption } from '../number-option.js';
import { childProgressText, poolVersionText, progressBar } from '../progress.js';
import { campaignCost, campaignCostLines, type CampaignCost } from '../campaign-cost.js';
import { campaignStateOf } from './report.js';

const usage = `finalstate campaign <subcommand> [--json]

  start CONFIG             start the campaign of a config file (schemas/campaign.ts CampaignConfig); prints its
                           workflow id and Temporal UI link. Starting a campaign that is running reports it instead.
                           First the base model (update.baseModel) is checked: a Hugging Face causal-LM directory
                           whose chat template, if it has one, renders as the interpreter does (--skip-base-model-check:
                           for pipeline checks whose gpu worker never reads it). A policy server whose context
                           (max_model_len) is shorter than limits.maxContextTokens is refused, naming both settings.
                           Then the memory preflight: the gpu
                           worker describes its ranks and the model, and an update that will not fit its GPUs or
                           nodes is refused with the numbers and the setting to change; it prints what one GPU and
                           one node will hold and the bytes each step's checkpoint writes (if no gpu worker answers
                           within a minute, the campaign runs the preflight itself before it probes).
  status ID [--watch]      phase, step, pool size, episode counts and the running child's progress, from the status query;
                           what the probe and the training spent, and the latest trained evaluation's cost per task
                           passed k/k, inference only and with the probe and the training (docs/results.md)
  pause ID                 finish the phase or step in progress, then wait
  resume ID                continue a paused campaign
  stop ID [--after N]      stop after the step in progress (or after step N), evaluate, and end
  set-max-steps ID N       change the number of steps of a running campaign
  replay-step ID N         re-run failed step N as a new child workflow

Workers must be running: node dist/workers/control.js and an episode worker (workers/episodes.ts).`;

async function withClient<T>(config: LoadedConfig, run: (client: Client) => Promise<T>): Promise<T> {
  const client = await connectClient(config);
  try {
    return await run(client);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new UserError(
        `finalstate campaign: no campaign ${JSON.stringify(err.workflowId)} in namespace ${config.temporal.namespace}`,
      );
    throw err;
  } finally {
    await client.connection.close();
  }
}

function requireArgs(positionals: string[], names: string[], sub: string): string[] {
  if (positionals.length !== names.length)
    throw new UserError(
      `finalstate campaign ${sub}: expected ${names.join(' ')}, got ${positionals.length} argument(s)\n\n${usage}`,
    );
  return positionals;
}

/** The campaign's config as its workflow gets it: task queues and tracking directories filled in. */
function withStack(config: LoadedConfig, campaignConfig: CampaignConfig): CampaignConfigWithQueues {
  return {
    ...campaignConfig,
    taskQueues: campaignConfig.taskQueues ?? config.taskQueues,
    tracking: resolveTrackingDirs(campaignConfig.tracking, config.dataPath),
  };
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

/** Whether a campaign with this id is running now. */
async function isRunning(client: Client, id: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(id).describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Starts the campaign workflow of a config; false when a campaign with that id is already running. */
export async function startCampaign(
  client: Client,
  config: LoadedConfig,
  campaignConfig: CampaignConfig,
): Promise<boolean> {
  const id = campaignConfig.campaignId;
  const input = { config: withStack(config, campaignConfig) };
  try {
    await client.workflow.start(campaign, {
      taskQueue: input.config.taskQueues.control,
      workflowId: id,
      args: [input],
      typedSearchAttributes: [
        { key: CampaignIdKey, value: id },
        { key: StepKey, value: 0 },
      ],
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

/** Status plus the live progress of the running child, if any; a finished campaign's status comes from its result. */
export async function campaignStatus(
  client: Client,
  id: string,
): Promise<CampaignStatus & { child: ChildProgress | null }> {
  const handle = client.workflow.getHandle(id);
  const { status: execution } = await handle.describe();
  if (execution.name === 'COMPLETED')
    return { ...statusOf(id, ((await handle.result()) as CampaignResult).state, null), child: null };
  if (execution.name !== 'RUNNING')
    throw new UserError(
      `finalstate campaign status: campaign ${id} is ${execution.name.toLowerCase()} (see its history in the Temporal UI)`,
    );
  const status = await handle.query(statusQuery);
  let child: ChildProgress | null = null;
  if (status.currentChild)
    child = await client.workflow
      .getHandle(status.currentChild)
      .query(progressQuery)
      .catch(() => null);
  return { ...status, child };
}

function gateText(gate: NonNullable<CampaignStatus['solvabilityGate']>): string {
  const what = gate.applied
    ? `solvability: only tasks the reference solved (${gate.referenceResultSet})`
    : `off (referenceProbe.gate false): the reference probe is recorded only (${gate.referenceResultSet})`;
  if (gate.dropped === null || gate.solved === null) return `${what}; pool not selected yet`;
  return `${what}; candidates solved by the reference: ${gate.solved}, ${gate.applied ? 'dropped' : 'the gate would drop'}: ${gate.dropped}`;
}

function renderStatus(
  s: CampaignStatus & { child: ChildProgress | null },
  cost: CampaignCost,
  config: LoadedConfig,
): string {
  const lines = [
    `campaign ${s.campaignId}  phase ${s.phase}${s.paused ? ' (paused)' : ''}  run ${s.run}`,
    `  steps     ${progressBar(s.step, s.maxSteps)}`,
    `  pool      ${s.poolSize ?? '(not selected yet)'} tasks${s.poolVersion ? `; ${poolVersionText(s.poolVersion)}` : ''}`,
    ...(s.solvabilityGate ? [`  gate      ${gateText(s.solvabilityGate)}`] : []),
    `  episodes  ${s.episodes.done} done, ${s.episodes.infraFailed} without outcome (infrastructure), $${s.costUsd.toFixed(4)}`,
  ];
  if (s.child && s.currentChild)
    lines.push(`  ${s.child.kind.padEnd(9)} ${childProgressText(s.child)}  (${workflowUrl(config, s.currentChild)})`);
  if (s.lastMetrics)
    lines.push(
      `  last eval ${Object.entries(s.lastMetrics)
        .map(([k, v]) => `${k} ${Number.isInteger(v) ? v : v.toFixed(3)}`)
        .join('  ')}`,
    );
  lines.push(...campaignCostLines(cost));
  if (s.failedStep)
    lines.push(
      `  step ${s.failedStep.step} FAILED: ${s.failedStep.message}\n  re-run it with: finalstate campaign replay-step ${s.campaignId} ${s.failedStep.step}`,
    );
  if (s.stopAfterStep !== null) lines.push(`  stopping after step ${s.stopAfterStep}`);
  return lines.join('\n');
}

export const campaignCommand: Command = {
  name: 'campaign',
  summary: 'start, watch and steer a training campaign (start, status, pause, resume, stop, replay-step)',
  usage,
  async run(argv) {
    const { values, positionals } = parse('campaign', argv, {
      watch: { type: 'boolean', default: false },
      after: { type: 'string' },
      'skip-base-model-check': { type: 'boolean', default: false },
    });
    const [sub, ...rest] = positionals;
    if (values.help || !sub) {
      console.log(usage);
      return sub || values.help ? 0 : 2;
    }
    const config = loadConfig();
    switch (sub) {
      case 'start': {
        const [file] = requireArgs(rest, ['CONFIG'], sub);
        let parsed = readJsonConfig(file!, CampaignConfig, 'campaign config');
        if (!values['skip-base-model-check']) {
          // The model check picks the chat format from the checkpoint's own template; the campaign runs with it.
          const served = parsed.policy.kind === 'served' ? parsed.policy.client : undefined;
          const checked = await checkModel(config, parsed.update.baseModel, {
            ...(served?.family !== undefined ? { family: served.family } : {}),
            toolSets: await campaignToolSets([parsed.tasks.train, parsed.tasks.eval]),
          });
          if (served) {
            served.family = checked.family;
            served.controlTokens ??= checked.report.addedTokens;
          }
          if (!values.json) console.log(describeCheck(checked));
        }
        const short = await serversShorterThan(policyServersOf(parsed), parsed.limits.maxContextTokens);
        if (short.length > 0) throw new UserError(`campaign ${parsed.campaignId}: ${short.join('; ')}`);
        const speed = parsed.fleet.servingSpeed ?? (await measuredSpeed(parsed));
        if (speed) {
          const planned = planWaits(parsed, JSON.parse(fs.readFileSync(file!, 'utf8')) as unknown, speed);
          if (planned.problems.length > 0)
            throw new UserError(`campaign ${parsed.campaignId}: ${planned.problems.join('; ')}`);
          parsed = planned.config;
          if (!values.json)
            console.log(
              `episode waits at ${Math.round(speed.prefillTokensPerSecond)} prompt and ${Math.round(speed.decodeTokensPerSecond)} sampled tokens/s a request: a policy call up to ${Math.round(planned.waits.perCallMs / 1000)} s, an attempt up to ${Math.round(planned.waits.attemptMs / 1000)} s${planned.derived.length ? `; derived ${planned.derived.join(', ')}` : ''}`,
            );
        }
        if (parsed.update.lora) {
          // A LoRA campaign's adapters must fit its servers: caught here where a server reports its maximum rank.
          const low = await serversBelowRank(policyServersOf(parsed), parsed.update.lora.rank, defaultPublishOptions);
          if (low.length > 0) throw new UserError(`campaign ${parsed.campaignId}: ${low.join('; ')}`);
        }
        const id = parsed.campaignId;
        const url = workflowUrl(config, id);
        const { started, preflight } = await withClient(config, async (client) => {
          if (await isRunning(client, id)) return { started: false, preflight: null };
          const lines = await memoryPreflight(client, config, parsed);
          if (!values.json)
            console.log(
              lines?.join('\n') ??
                `memory preflight: no gpu worker answered on task queue ${withStack(config, parsed).taskQueues.gpu} within a minute; the campaign runs it before it probes`,
            );
          return { started: await startCampaign(client, config, parsed), preflight: lines };
        });
        if (values.json) printJson({ workflowId: id, url, started, preflight });
        else console.log(`${started ? 'started' : 'already running'}: campaign ${id}\n  ${url}`);
        return 0;
      }
      case 'status': {
        const [id] = requireArgs(rest, ['ID'], sub);
        return withClient(config, async (client) => {
          for (;;) {
            const status = await campaignStatus(client, id!);
            const cost = await campaignCost(config, id!, await campaignStateOf(client, id!));
            if (values.json) printJson({ ...status, cost });
            else console.log(renderStatus(status, cost, config));
            if (!values.watch || status.phase === 'done' || status.phase === 'stopped') return 0;
            await new Promise((resolve) => setTimeout(resolve, 2000));
            if (!values.json) process.stdout.write('\n');
          }
        });
      }
      case 'pause':
      case 'resume':
      case 'stop': {
        const [id] = requireArgs(rest, ['ID'], sub);
        const after = integerOption(values.after, 'after', 'campaign stop', 0);
        await withClient(config, async (client) => {
          const handle = client.workflow.getHandle(id!);
          if (sub === 'pause') await handle.signal(pauseSignal);
          else if (sub === 'resume') await handle.signal(resumeSignal);
          else await handle.signal(stopAfterStepSignal, after);
        });
        if (values.json) printJson({ workflowId: id, signal: sub === 'stop' ? 'stopAfterStep' : sub });
        else console.log(`${sub} sent to campaign ${id}`);
        return 0;
      }
      case 'set-max-steps':
      case 'replay-step': {
        const [id, n] = requireArgs(rest, ['ID', 'N'], sub);
        const value = integerOption(n, 'N', `campaign ${sub}`, 1)!;
        const result = await withClient(config, async (client) => {
          const handle = client.workflow.getHandle(id!);
          try {
            return sub === 'set-max-steps'
              ? await handle.executeUpdate(setMaxStepsUpdate, { args: [value] })
              : await handle.executeUpdate(replayStepUpdate, { args: [value] });
          } catch (err) {
            // A rejected update names the reason (validator message) in its cause.
            const reason = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
            throw new UserError(`finalstate campaign ${sub} ${id} ${value}: rejected: ${reason}`);
          }
        });
        if (values.json)
          printJson(
            sub === 'set-max-steps'
              ? { workflowId: id, maxSteps: value, previous: result }
              : { workflowId: id, step: value, childWorkflowId: result },
          );
        else
          console.log(
            sub === 'set-max-steps'
              ? `campaign ${id}: max steps ${result} -> ${value}`
              : `campaign ${id}: step ${value} re-runs as ${result}\n  ${workflowUrl(config, String(result))}`,
          );
        return 0;
      }
      default:
        throw new UserError(`finalstate campaign: unknown subcommand ${JSON.stringify(sub)}\n\n${usage}`);
    }
  },
};

/** One request's speed on the first rollout server that answers, or undefined (the waits stay as configured). */
async function measuredSpeed(config: CampaignConfig): Promise<ServingSpeed | undefined> {
  if (config.policy.kind !== 'served') return undefined;
  for (const server of policyServersOf(config)) {
    const speed = await measureSpeed(server, config.policy.client.model).catch(() => undefined);
    if (speed) return speed;
  }
  return undefined;
}
