import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { UserError } from '../../core/errors.js';
import { describeFailure } from '../../core/failure-causes.js';
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
import { checkBeforeStart, memoryPreflight, withStack } from '../campaign-start/checks.js';
import { parse, printJson, type Command } from '../command.js';
import { integerOption } from '../number-option.js';
import { childProgressText, failedStepText, poolVersionText, progressBar } from '../progress.js';
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
  if (execution.name === 'FAILED') {
    const failure = await handle.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    throw new UserError(`finalstate campaign status: campaign ${id} failed: ${describeFailure(failure)}`);
  }
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
  if (s.failedStep) lines.push(`  ${failedStepText(s.campaignId, s.failedStep)}`);
  if (s.stopAfterStep !== null) lines.push(`  stopping after step ${s.stopAfterStep}`);
  return lines.join('\n');
}

/** `campaign start CONFIG`: the checks before anything runs, the memory preflight, then the campaign workflow. */
async function start(
  config: LoadedConfig,
  file: string,
  options: { json: boolean; skipModelCheck: boolean },
): Promise<number> {
  const parsed = await checkBeforeStart(config, readJsonConfig(file, CampaignConfig, 'campaign config'), {
    file,
    modelCheck: !options.skipModelCheck,
    log: (line) => void (options.json ? undefined : console.log(line)),
  });
  const id = parsed.campaignId;
  const url = workflowUrl(config, id);
  const { started, preflight } = await withClient(config, async (client) => {
    if (await isRunning(client, id)) return { started: false, preflight: null };
    const lines = await memoryPreflight(client, config, parsed);
    if (!options.json)
      console.log(
        lines?.join('\n') ??
          `memory preflight: no gpu worker answered on task queue ${withStack(config, parsed).taskQueues.gpu} within a minute; the campaign runs it before it probes`,
      );
    return { started: await startCampaign(client, config, parsed), preflight: lines };
  });
  if (options.json) printJson({ workflowId: id, url, started, preflight });
  else console.log(`${started ? 'started' : 'already running'}: campaign ${id}\n  ${url}`);
  return 0;
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
        return start(config, file!, {
          json: values.json === true,
          skipModelCheck: values['skip-base-model-check'] === true,
        });
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
