import fs from 'node:fs';
import path from 'node:path';
import { localPathOf } from '../../storage/artifacts.js';
import { contentHash } from '../../environment/canonical.js';
import type { LoadedConfig } from '../../schemas/config.js';
import type { DemoPreset } from '../../schemas/demo.js';
import { loadConfig } from '../../workers/config.js';
import { UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { importThinkingBox } from '../../environment/thinkingbox/import.js';
import { thinkingBoxDeviations } from '../../environment/thinkingbox/deviations.js';
import { readTaskSource } from '../../environment/task-set.js';
import { adapterName, adapterPrefixOf, versionNumber } from '../../core/policy-versions.js';
import { servedLoraRank } from '../../infra/vllm-server.js';
import * as stack from '../../infra/stack/index.js';
import { uiUrl, workflowUrl } from '../../infra/stack/temporal.js';
import type { Client } from '@temporalio/client';
import { connectClient } from '../../workers/temporal-client.js';
import type { CampaignState } from '../../schemas/campaign.js';
import { parse, printJson, type Command } from '../command.js';
import { startMachine, type Machine } from '../../workers/machine.js';
import { checkServing, describeServing, type ServingCheck } from '../demo/serving-check.js';
import {
  campaignConfigOf,
  currentCampaignId,
  derivedCampaignId,
  loadPreset,
  SERVED_MODEL_NAME,
  withReprobe,
} from '../demo/preset.js';
import { integerOption } from '../number-option.js';
import { failedStepText } from '../progress.js';
import { PACK_DEMO_COUNTS, packDemo } from '../demo/pack.js';
import { compareCampaign, renderComparison } from '../demo/summary.js';
import { watchCampaign, type PhaseTime } from '../demo/watch.js';
import { startCampaign } from './campaign.js';
import { campaignToolSets, checkModel, describeCheck } from '../model/model-check.js';
import { chatApiArgs } from '../demo/chat-template.js';
import { buildBaseModel } from '../model/base-model.js';
import { controlPool } from '../../workers/stores.js';
import { renderText } from '../../stats/tables/table.js';
import { unfinishedTable } from '../../stats/unfinished.js';
import { judgeCampaignUnfinished } from '../demo/unfinished.js';
import { campaignStateOf, writeCampaignReport } from './report.js';
import { campaignCost, campaignCostLines } from '../campaign-cost.js';

const usage = `finalstate demo [--preset five-domain|five-domain-lora|five-domain-passk|five-domain-kl|five-domain-unlikely|five-domain-async|mini|smoke|real-smoke|real-smoke-lora|thinkingbox-smoke|thinkingbox-real-smoke|FILE] [--pack DIR] [--base-model DIR] [--fresh] [--reprobe-every N [--reprobe-n M]] [--json]

The main job on embedded defaults, on one machine: starts the stack, builds (or reuses) the tiny base model, starts a
policy server, the gpu worker (Python) and the control and episode workers, then runs a campaign: probe the training
tasks with the base policy, freeze a pool by difficulty, evaluate the base policy on held-out tasks, train with GRPO,
evaluate the trained policy, and print base against trained with intervals, the per-task flips and the HTML report.

  --preset P   five-domain (default; the learning demo on five business domains, two of them out-of-domain), mini
               (retail and travel only), smoke (every phase on tiny counts, a few minutes), or the path of a preset
               file (copy cli/demo/presets/five-domain.json and edit it); real-smoke: the smoke on real parts (vLLM
               serving a pretrained checkpoint, the gpu worker FSDP2-sharded over 2 gloo ranks); give it --base-model;
               five-domain-lora and real-smoke-lora: the same with LoRA adapters (update.lora) published beside the
               base model; five-domain-passk: five-domain with the pass@k advantage (update.loss.passAtK 2);
               five-domain-kl: with a KL penalty to the base policy (update.loss.klReference base, klCoef 0.1);
               five-domain-unlikely: with the unlikeliness reward (update.loss.unlikeliness 0.25);
               five-domain-async: with asynchronous steps (campaign.async.maxStaleness 1); thinkingbox-smoke: every
               phase on the project's ThinkingBox tasks, on ThinkingBox's servers and grader (docs/thinkingbox.md);
               thinkingbox-real-smoke: the same on real parts (vLLM, ThinkingBox's user and judge on its chat API)
  --pack DIR   train and evaluate on a domain pack of your own instead (a built pack directory, e.g. from
               \`finalstate domain init\`): its mini tasks in DIR/tasks (${PACK_DEMO_COUNTS.train} train and ${PACK_DEMO_COUNTS.eval} eval generated when
               absent) are the base model's demonstrations, the training candidates and the held-out set, with the
               preset's counts (default preset with --pack: smoke); see docs/domain-packs.md
  --base-model DIR
               start from this Hugging Face checkpoint (e.g. from \`finalstate model import --asset smollm2\`)
               instead of building the tiny base model
  --fresh      start a new campaign instead of continuing the one this preset and base model already started
  --reprobe-every N
               re-probe every candidate with the current policy after every N-th step and swap out pool tasks that
               became solved or stayed hopeless (campaign key reprobe); a different campaign than the frozen pool's
  --reprobe-n M
               episodes per task in each re-probe (default the preset's probing.n)

Ctrl-C stops the workers; the same command continues the same campaign (its id is derived from the preset and the
base model) without redoing finished steps. A step that fails prints its whole cause and the command that re-runs it
(with --json: {campaignId, url, failedStep, phases}) and exits 1.`;

/** A checkpoint directory given by the user (e.g. from `finalstate model import`), identified by its files. */
function checkpointBase(dir: string): { checkpointDir: string; contentHash: string; description: string } {
  const checkpointDir = path.resolve(dir);
  if (!fs.existsSync(path.join(checkpointDir, 'config.json')))
    throw new UserError(`finalstate demo: --base-model ${dir} holds no config.json (not a Hugging Face checkpoint)`);
  const files = fs
    .readdirSync(checkpointDir)
    .sort()
    .map((name) => {
      const stat = fs.statSync(path.join(checkpointDir, name));
      return { name, size: stat.size, mtime: stat.mtimeMs };
    });
  return { checkpointDir, contentHash: contentHash({ checkpointDir, files }), description: checkpointDir };
}

async function builtBase(
  config: LoadedConfig,
  preset: DemoPreset,
  tasksDir: string | undefined,
  log: (line: string) => void,
) {
  log('base model: building or reusing (cached by content hash)…');
  const base = await buildBaseModel(config, {
    ...(preset.baseModel.steps !== undefined ? { steps: preset.baseModel.steps } : {}),
    ...(preset.baseModel.maxDemos !== undefined ? { maxDemos: preset.baseModel.maxDemos } : {}),
    seed: preset.baseModel.seed,
    ruleBreakingShare: preset.baseModel.ruleBreakingShare,
    contextWeight: preset.baseModel.contextWeight,
    ...(preset.baseModel.maxPositions !== undefined ? { maxPositions: preset.baseModel.maxPositions } : {}),
    ...(preset.baseModel.domains ? { domains: preset.baseModel.domains } : {}),
    ...(tasksDir ? { dir: tasksDir } : {}),
    // Oracle episodes wait on PostgreSQL more than on the CPU: four at once render the demonstrations fastest here.
    concurrency: 4,
    log: (line) => (/loss|demonstrations|step/.test(line) ? log(`  ${line}`) : undefined),
  });
  return {
    checkpointDir: base.checkpointDir,
    contentHash: base.contentHash,
    description: `${base.checkpointDir}${base.cached ? ' (cached)' : ''}, ${base.report.paramCount.toLocaleString('en-US')} parameters, SFT loss ${base.report.finalLoss.toFixed(4)}`,
  };
}

const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;

type Base = { checkpointDir: string; contentHash: string; description: string };

/** One run of the demo: what every part of it reads. */
interface DemoRun {
  config: LoadedConfig;
  preset: DemoPreset;
  campaignId: string;
  campaignConfig: ReturnType<typeof campaignConfigOf>;
  base: Base;
  /** The preset's, and the chat template vLLM's chat API needs (cli/demo/chat-template.ts). */
  vllmArgs: string[];
  client: Client;
  json: boolean;
  log: (line: string) => void;
  phases: PhaseTime[];
  started: number;
}

/**
 * The base model (a given checkpoint, or built), the campaign id it and the preset derive, and the campaign's config
 * with the prompt format the model check found in the base model's template.
 */
async function prepareCampaign(
  config: LoadedConfig,
  preset: DemoPreset,
  options: { checkpoint: string | undefined; tasksDir: string | undefined; fresh: boolean },
  log: (line: string) => void,
  phases: PhaseTime[],
) {
  const t = performance.now();
  const base = options.checkpoint
    ? checkpointBase(options.checkpoint)
    : await builtBase(config, preset, options.tasksDir, log);
  phases.push({ phase: 'base model', seconds: seconds(t) });
  log(`base model: ${base.description} (${seconds(t)} s)`);
  const derived = derivedCampaignId(preset, base.contentHash);
  const campaignId = currentCampaignId(config, derived, options.fresh);
  const campaignConfig = campaignConfigOf(preset, campaignId, base.checkpointDir);
  if (preset.thinkingbox) {
    const imported = await importPresetThinkingBox(config, preset, preset.thinkingbox);
    campaignConfig.tasks.train.taskSet = imported;
    campaignConfig.tasks.eval.taskSet = imported;
    log(`ThinkingBox tasks: ${preset.thinkingbox.tests.join(', ')} imported into ${imported}`);
  }
  const checked = await checkModel(config, base.checkpointDir, {
    toolSets: await campaignToolSets([campaignConfig.tasks.train, campaignConfig.tasks.eval]),
  });
  // the campaign runs with the format the check found in the base model's template, as `campaign start` does
  if (campaignConfig.policy.kind === 'served') {
    campaignConfig.policy.client.family = checked.family;
    campaignConfig.policy.client.controlTokens ??= checked.report.addedTokens;
  }
  log(describeCheck(checked));
  const vllmArgs =
    preset.policyServer.engine === 'vllm'
      ? await chatApiArgs(config, checked, preset.policyServer.vllmArgs, log)
      : preset.policyServer.vllmArgs;
  return { base, campaignId, campaignConfig, vllmArgs };
}

/** A ThinkingBox preset's tests, imported into the data directory (again each run: the import takes seconds). */
async function importPresetThinkingBox(
  config: LoadedConfig,
  preset: DemoPreset,
  tb: NonNullable<DemoPreset['thinkingbox']>,
): Promise<string> {
  const dir = path.join(config.dataPath, 'thinkingbox', `demo-${preset.name}`);
  fs.mkdirSync(dir, { recursive: true });
  await importThinkingBox(config, {
    inputs: tb.tests.map((t) => fromRoot(t)),
    split: 'train',
    evalShare: tb.evalShare,
    dropSources: true,
    out: { dir, name: 'thinkingbox' },
  });
  return dir;
}

/** What this machine runs for the preset; a resumed campaign's servers serve the policy it last published, not the base model. */
async function startDemoMachine(run: DemoRun, resuming: boolean, onResumed: (state: CampaignState | null) => void) {
  const { config, preset, campaignId, campaignConfig, base, client, log } = run;
  return startMachine(config, {
    name: campaignId,
    queues: campaignConfig.taskQueues!,
    policy: async () => {
      const existing = resuming ? await campaignStateOf(client, campaignId) : null;
      onResumed(existing);
      // A LoRA campaign's servers start on the base model; reconcileFleet loads the current adapter beside it.
      return existing?.checkpointUri && !campaignConfig.update.lora
        ? { checkpointDir: localPathOf(existing.checkpointUri), version: Number(existing.policyVersion ?? 0) }
        : { checkpointDir: base.checkpointDir, version: 0 };
    },
    port: preset.policyServer.port,
    servedModelName: SERVED_MODEL_NAME,
    maxBatchSize: preset.policyServer.maxBatchSize,
    batchWaitMs: preset.policyServer.batchWaitMs,
    threads: preset.policyServer.threads,
    episodeConcurrency: preset.episodeConcurrency,
    engine: preset.policyServer.engine,
    ...(preset.policyServer.maxModelLen !== undefined ? { maxModelLen: preset.policyServer.maxModelLen } : {}),
    vllmArgs: run.vllmArgs,
    ...(campaignConfig.update.lora ? { lora: { maxRank: servedLoraRank(campaignConfig.update.lora.rank) } } : {}),
    gpuRanks: preset.gpuWorker.ranks,
    prices: preset.prices,
    log,
  });
}

/**
 * Starts (or continues) the campaign on this machine and watches it to its end: undefined when it finished, else the
 * exit code (130 interrupted, 1 a failed step that waits for replay-step).
 */
async function runAndWatch(
  run: DemoRun,
  resuming: boolean,
  interrupted: Promise<'interrupted'>,
  onMachine: (machine: Machine) => void,
): Promise<number | undefined> {
  const { config, campaignId, client, json, log, phases } = run;
  const t = performance.now();
  let resumed: CampaignState | null = null;
  onMachine(await startDemoMachine(run, resuming, (state) => (resumed = state)));
  phases.push({ phase: 'workers', seconds: seconds(t) });
  const startedNow = await startCampaign(client, config, run.campaignConfig);
  const existing = resumed as CampaignState | null;
  log(
    `${startedNow ? 'started' : 'continuing'} campaign ${campaignId}${existing ? ` at step ${existing.step}, phase ${existing.phase}` : ''}\n  ${workflowUrl(config, campaignId)}`,
  );
  const stopWatching = new AbortController();
  const watching = watchCampaign(client, config, campaignId, {
    log,
    isTty: !json && Boolean(process.stdout.isTTY),
    signal: stopWatching.signal,
  });
  const watched = await Promise.race([watching, interrupted]);
  if (watched === 'interrupted' || watched.final === null) {
    // The watcher may be mid-query: stop it and let that query fail quietly once the connection closes.
    stopWatching.abort();
    watching.catch(() => undefined);
    log(
      `\ninterrupted: stopping the workers. The campaign waits in Temporal; run the same command again to continue ${campaignId}.`,
    );
    return 130;
  }
  phases.push(...watched.phases);
  if (watched.final.phase === 'step-failed' && watched.final.failedStep) {
    const failed = watched.final.failedStep;
    log(`${failedStepText(campaignId, failed)} (with this command running, or its workers)`);
    if (json) printJson({ campaignId, url: workflowUrl(config, campaignId), failedStep: failed, phases });
    return 1;
  }
  return undefined;
}

/** The finished campaign: base against trained, the report, what stayed unfinished, and the wall time by phase. */
async function showResult(run: DemoRun, machine: Machine | undefined): Promise<number> {
  const { config, preset, campaignId, client, base, json, log, phases } = run;
  const state = await campaignStateOf(client, campaignId);
  // vLLM reports no policy version: what it serves is judged by its log-probs against the trainer's.
  let serving: ServingCheck | undefined;
  if (machine && preset.policyServer.engine === 'vllm' && state.checkpointUri) {
    const t = performance.now();
    const lora = run.campaignConfig.update.lora;
    serving = await checkServing(
      config,
      // A LoRA campaign's version is the adapter named after it, served beside the base model.
      {
        url: machine.policyUrl,
        model: lora ? adapterName(adapterPrefixOf(campaignId), versionNumber(state.policyVersion)) : SERVED_MODEL_NAME,
      },
      { published: localPathOf(state.checkpointUri), base: base.checkpointDir },
    );
    phases.push({ phase: 'serving check', seconds: seconds(t) });
    log(describeServing(serving, state.policyVersion ?? '?'));
  }
  const k = run.campaignConfig.evaluation.k;
  const { comparison, trainedStep } = await compareCampaign(config, campaignId, state, k);
  const { train, eval: held } = run.campaignConfig.tasks;
  const deviations = thinkingBoxDeviations(
    [train, held].flatMap((source) =>
      readTaskSource(localPathOf(source.taskSet))
        .flatMap((set) => set.tasks)
        .filter((t) => t.split === source.split && (!source.domains || source.domains.includes(t.domain))),
    ),
  );
  const report = await writeCampaignReport(config, campaignId, state, undefined, deviations);
  const cost = await campaignCost(config, campaignId, state);
  const control = controlPool(config, 1);
  const unfinished = await judgeCampaignUnfinished(control, campaignId, state.step, preset.unfinished).finally(() =>
    control.end(),
  );
  const total = seconds(run.started);
  if (json) {
    printJson({
      campaignId,
      url: workflowUrl(config, campaignId),
      baseModel: base.checkpointDir,
      trainedStep,
      steps: state.steps,
      poolSize: state.pool?.length ?? 0,
      ...(state.poolHistory ? { poolHistory: state.poolHistory } : {}),
      phases,
      totalSeconds: total,
      report: report.html,
      comparison,
      cost,
      unfinished,
      ...(serving ? { serving } : {}),
      deviations,
    });
  } else {
    log(`\n${renderComparison(comparison)}`);
    for (const line of deviations) log(line);
    log(`\ncost\n${campaignCostLines(cost).join('\n')}`);
    log(`\n${renderText(unfinishedTable(unfinished, preset.unfinished))}`);
    log(
      `\nwall time: ${phases.map((p) => `${p.phase} ${p.seconds.toFixed(0)} s`).join(', ')}; total ${total.toFixed(0)} s`,
    );
    log(`report: ${report.html}`);
    log(
      `campaign: ${workflowUrl(config, campaignId)} (every episode is an activity in its step's or evaluation's history)`,
    );
  }
  return 0;
}

/** Whether the campaign is running (resume it), finished (show it) or new; refuses one that ended otherwise. */
async function campaignStatus(client: Client, campaignId: string) {
  const { status } = await client.workflow
    .getHandle(campaignId)
    .describe()
    .catch((err: Error) => {
      if (err.name === 'WorkflowNotFoundError') return { status: null };
      throw err;
    });
  if (status && status.name !== 'RUNNING' && status.name !== 'COMPLETED') {
    throw new UserError(
      `finalstate demo: campaign ${campaignId} is ${status.name.toLowerCase()}; see it in the Temporal UI, or start a new one with --fresh`,
    );
  }
  return status;
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run a whole campaign on embedded defaults (probe, select, GRPO, evaluate) and show base vs trained',
  usage,
  async run(argv) {
    const { values } = parse('demo', argv, {
      preset: { type: 'string' },
      pack: { type: 'string' },
      fresh: { type: 'boolean', default: false },
      'reprobe-every': { type: 'string' },
      'reprobe-n': { type: 'string' },
      'base-model': { type: 'string' },
    });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    const json = Boolean(values.json);
    const log = (line: string) => (json ? process.stderr.write(`${line}\n`) : console.log(line));
    const started = performance.now();
    const phases: PhaseTime[] = [];
    const loaded = loadPreset(values.preset ?? (values.pack ? 'smoke' : 'five-domain'));
    const { file } = loaded;
    const pack = values.pack ? await packDemo(values.pack, loaded.preset, log) : undefined;
    const everySteps = integerOption(values['reprobe-every'], 'reprobe-every', 'demo', 1);
    const n = integerOption(values['reprobe-n'], 'reprobe-n', 'demo', 1);
    const preset = withReprobe(pack?.preset ?? loaded.preset, {
      ...(everySteps !== undefined ? { everySteps } : {}),
      ...(n !== undefined ? { n } : {}),
    });
    const config = loadConfig();
    log(`preset ${preset.name} (${file}): ${preset.description}`);
    if (preset.campaign.reprobe)
      log(
        `re-probing: every ${preset.campaign.reprobe.everySteps} steps, ${preset.campaign.reprobe.n ?? preset.campaign.probing.n} episodes per candidate`,
      );

    const t = performance.now();
    await stack.up(config);
    phases.push({ phase: 'stack', seconds: seconds(t) });
    log(`stack: up (${seconds(t)} s); Temporal UI ${uiUrl(config)}`);

    const prepared = await prepareCampaign(
      config,
      preset,
      {
        checkpoint: values['base-model'] ?? preset.baseModel.checkpoint,
        tasksDir: pack?.tasksDir,
        fresh: values.fresh ?? false,
      },
      log,
      phases,
    );
    const client = await connectClient(config);
    const run: DemoRun = { config, preset, ...prepared, client, json, log, phases, started };
    let machine: Machine | undefined;
    const interrupted = new Promise<'interrupted'>((resolve) => process.once('SIGINT', () => resolve('interrupted')));
    try {
      const status = await campaignStatus(client, run.campaignId);
      if (status?.name === 'COMPLETED')
        log(`campaign ${run.campaignId} already finished; showing its result (--fresh starts a new one)`);
      else {
        const code = await runAndWatch(run, status !== null, interrupted, (running) => (machine = running));
        if (code !== undefined) return code;
      }
      return await showResult(run, machine);
    } finally {
      await machine?.stop();
      await client.connection.close();
    }
  },
};
