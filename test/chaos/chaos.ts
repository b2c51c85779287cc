import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildBaseModel } from '../../cli/model/base-model.js';
import { loadConfig } from '../../workers/config.js';
import { fromRoot } from '../../core/paths.js';
import * as stack from '../../infra/stack/index.js';
import { loadPreset } from '../../cli/demo/preset.js';
import { oracleId, runCampaign, type CampaignRun } from './campaign.js';
import { FAULT_KINDS, FLEET_FAULT_KINDS, type FaultKind, type PlannedFault } from './faults.js';
import { fleetChanges, rejoins, servedVersionsOfLog } from './fleet-report.js';
import { checkInvariants, scoredRewards, type InvariantReport, type ScoredEpisode, type SlotOf } from './invariants.js';
import { renderTable, verdicts, type ChaosResult } from './table.js';

/**
 * GRPO steps of the asynchronous run: a fault per pair of slots that run beside each other, a free pair between the
 * rollout server's kill and the failing publish (a server restarts in half a minute on a loaded machine), the step
 * after the failing publish's next, whose rollouts' reconcile brings the ejected server back, and one more for the
 * restart during step 6's publish.
 */
export const ASYNC_STEPS = 7;
/**
 * GRPO steps of the asynchronous CI run (`--async --short`): step 2's publish is where the restart lands, beside step
 * 3's rollouts, whose reconcile keeps the fleet on version 1: a server restarted on the base model is behind it.
 */
export const ASYNC_SHORT_STEPS = 3;
/** K of the asynchronous run. */
export const ASYNC_MAX_STALENESS = 1;

const usage = `node dist/test/chaos/chaos.js [--short] [--async] [--json] [--dir DIR] [--fault KIND@SLOT ... --steps N]
  (npm run chaos [-- --short | --async | --async --short])

Runs a small GRPO campaign (the smoke preset's tiny served model, several steps) on a private stack (its own
PostgreSQL cluster and Temporal dev server under DIR, default .data/chaos, on free ports) with the real worker
processes, first without faults (the baseline), then again with the same campaign id and seeds while it injects
each fault: SIGKILL an episode worker mid-episode, SIGKILL the control worker, SIGKILL the gpu worker during an
update, restart the Temporal dev server, restart PostgreSQL, stop the policy server for several seconds, pause an
episode worker (SIGSTOP) and partition it from Temporal past the heartbeat timeout (zombie attempts), cancel a
grading statement, crash PostgreSQL during grading, freeze the episode database sessions (hung tools), stall the
policy server (SIGSTOP) past the episode clock. A supervisor restarts what was killed. Prints the table of
docs/reliability.md and exits 1 if an invariant fails.

  --short   CI mode: one step, no baseline, an episode-worker SIGKILL, a PostgreSQL restart and a cancelled grading
            statement (about 2 minutes)
  --async   asynchronous steps (async.maxStaleness ${ASYNC_MAX_STALENESS}, ${ASYNC_STEPS} steps) on a rollout fleet of two policy servers,
            with a baseline: SIGKILL the gpu worker during an update while the next step's rollouts run, SIGKILL a
            rollout server mid-step, fail a publish on one of the two servers, restart a server while a publish to it
            is held and the next step reconciles the fleet (with --fault: only those named)
  --async --short   CI mode of the fleet: ${ASYNC_SHORT_STEPS} asynchronous steps, no baseline, the restart during a publish (about 3 minutes)
  --json    print the result as JSON instead of the table
  --fault   instead of the full list, inject only this fault (repeatable), e.g. --fault policy-server-stall@eval-1;
            KIND is one of ${FAULT_KINDS.join(', ')}, SLOT one of probe, base-eval, step-N/episodes, step-N/update,
            eval-N (the last step's evaluation is the final one); with a baseline, like the full mode
  --steps   GRPO steps of the campaign with --fault (default 1)`;

/** GRPO steps of the full run: one episode phase per episode fault. */
const FULL_STEPS = 6;
export const FULL_FAULTS: PlannedFault[] = [
  { kind: 'episode-worker-sigkill', slot: 'probe' },
  { kind: 'postgres-restart', slot: 'base-eval' },
  { kind: 'policy-server-stop', slot: 'step-1/episodes' },
  { kind: 'gpu-worker-sigkill', slot: 'step-1/update' },
  { kind: 'control-worker-sigkill', slot: 'step-2/episodes' },
  { kind: 'temporal-restart', slot: 'step-3/episodes' },
  { kind: 'episode-worker-pause', slot: 'step-4/episodes' },
  // the grading faults wait for a grading of the oracle companion, which runs through every phase
  { kind: 'grading-cancel', slot: 'step-4/update' },
  { kind: 'episode-worker-partition', slot: 'step-5/episodes' },
  { kind: 'grading-postgres-restart', slot: 'step-5/update' },
  { kind: 'episode-sessions-freeze', slot: 'step-6/episodes' },
  { kind: 'policy-server-stall', slot: 'eval-6' },
];
/** One fault per pair of slots that run beside each other: step n's update and step n+1's rollouts. */
export const ASYNC_FAULTS: PlannedFault[] = [
  { kind: 'gpu-worker-sigkill-overlapped', slot: 'step-1/update' },
  { kind: 'rollout-server-sigkill', slot: 'step-3/episodes' },
  { kind: 'rollout-publish-fail', slot: 'step-4/update' },
  { kind: 'rollout-restart-mid-publish', slot: 'step-6/update' },
];
export const ASYNC_SHORT_FAULTS: PlannedFault[] = [{ kind: 'rollout-restart-mid-publish', slot: 'step-2/update' }];
export const SHORT_FAULTS: PlannedFault[] = [
  { kind: 'episode-worker-sigkill', slot: 'probe' },
  { kind: 'postgres-restart', slot: 'base-eval' },
  { kind: 'grading-cancel', slot: 'step-1/update' },
];

/**
 * Deletes a directory tree in a child process. `fs.promises.rm` of a cluster's tens of thousands of files would queue
 * as many jobs on libuv's four-thread pool, where the next stack's first connection waits for its SCRAM key
 * derivation (pbkdf2) behind them and times out.
 */
function removeTree(dir: string): Promise<void> {
  return new Promise((resolve) => {
    const rm = spawn('rm', ['-rf', dir], { stdio: 'ignore' });
    rm.on('error', () => resolve());
    rm.on('exit', () => resolve());
  });
}

/**
 * Stops whatever an earlier, interrupted run left running under `dir`, and moves it aside; the removal (a cluster
 * of kept episode databases is a gigabyte, which a busy disk takes a minute to delete) runs in the background.
 */
async function clearDir(dir: string): Promise<{ removed: Promise<void> }> {
  if (!fs.existsSync(dir)) return { removed: Promise.resolve() };
  for (const run of fs.readdirSync(dir)) {
    const data = path.join(dir, run, 'data');
    if (fs.existsSync(data))
      await stack
        .down(loadConfig({ env: { ...process.env, DATABASE_URL: '', FINALSTATE_DATA_DIR: data } }))
        .catch(() => undefined);
  }
  const aside = `${dir}.old-${process.pid}`;
  fs.renameSync(dir, aside);
  return { removed: removeTree(aside) };
}

/**
 * The phase (slot) of the run an episode was scheduled in; with asynchronous steps, every slot it ran in, from its
 * scheduling to its end (step n's update and step n+1's rollouts run beside each other), and a step's episodes are in
 * its rollouts' slot in any case.
 */
function slotOfRun(run: CampaignRun, overlapping: boolean): SlotOf {
  return (a) => {
    const at = (a.scheduledAt - run.startedAt) / 1000;
    if (overlapping) {
      const until = (a.closedAt - run.startedAt) / 1000;
      const step = /\/step-(\d+)(-replay-\d+)?$/.exec(a.child)?.[1];
      const slots = run.slots.filter((s) => s.start <= until && at <= s.end).map((s) => s.slot);
      return step === undefined ? slots : [...new Set([...slots, `step-${step}/episodes`])];
    }
    const slot = run.slots.find((s) => s.start <= at && at <= s.end)?.slot;
    return slot === undefined ? [] : [slot];
  };
}

export interface ChaosOptions {
  /** CI mode: no baseline, fewer steps and faults (with `async`: the fleet's). */
  short: boolean;
  /** Asynchronous steps on a rollout fleet of two servers (the fleet faults), with a baseline unless short. */
  async?: boolean;
  dir: string;
  log: (line: string) => void;
  /** A chosen list of faults in a campaign of `steps` steps, with a baseline, instead of the full list (not short). */
  only?: { faults: PlannedFault[]; steps: number };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const { log } = options;
  const started = performance.now();
  const removals = [(await clearDir(options.dir)).removed];
  const mode = options.short ? (options.async ? 'async-short' : 'short') : options.async ? 'async' : 'full';
  const steps = options.short
    ? options.async
      ? ASYNC_SHORT_STEPS
      : 1
    : (options.only?.steps ?? (options.async ? ASYNC_STEPS : FULL_STEPS));
  const faults = options.short
    ? options.async
      ? ASYNC_SHORT_FAULTS
      : SHORT_FAULTS
    : (options.only?.faults ?? (options.async ? ASYNC_FAULTS : FULL_FAULTS));
  const misplaced = faults.filter((f) => FLEET_FAULT_KINDS.includes(f.kind) && !options.async);
  if (misplaced.length)
    throw new Error(`${misplaced.map((f) => f.kind).join(', ')}: needs the rollout fleet of --async`);
  const campaignId = `chaos-${mode}`;
  const { preset } = loadPreset('smoke');
  let baseModelDir = '';
  // The smoke preset's base model, in the shared data dir's cache (where `finalstate demo --preset smoke` keeps it).
  const baseModel = async (config: ReturnType<typeof loadConfig>) => {
    const t = performance.now();
    const built = await buildBaseModel(config, {
      ...preset.baseModel,
      cacheDir: loadConfig().dataPath,
      log: () => undefined,
    });
    baseModelDir = built.checkpointDir;
    log(
      `base model: ${built.checkpointDir}${built.cached ? ' (cached)' : ''} (${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );
  };
  const common = {
    campaignId,
    steps,
    policyDownMs: 5000,
    timeoutMs: (options.short && !options.async ? 4 : 12) * 60_000,
    log,
    ...(options.async ? { maxStaleness: ASYNC_MAX_STALENESS } : {}),
  };

  let baseline: { run: CampaignRun; rewards: Map<string, ScoredEpisode> } | null = null;
  if (!options.short) {
    log(`baseline: campaign ${campaignId}, ${steps} steps, no faults`);
    const run = await runCampaign({
      ...common,
      dir: path.join(options.dir, 'baseline'),
      faults: [],
      prepare: baseModel,
      baseModelDir: () => baseModelDir,
    });
    try {
      baseline = { run, rewards: await scoredRewards(run.stack.config, campaignId) };
      log(`baseline: ${run.status} in ${run.seconds} s`);
    } finally {
      await run.close();
      removals.push(removeTree(path.join(options.dir, 'baseline')));
    }
  }
  log(
    `faulted: campaign ${campaignId}, ${steps} steps, faults ${faults.map((f) => `${f.kind} in ${f.slot}`).join(', ')}`,
  );
  const run = await runCampaign({
    ...common,
    dir: path.join(options.dir, 'faulted'),
    faults,
    prepare: baseModelDir ? async () => undefined : baseModel,
    baseModelDir: () => baseModelDir,
  });
  let invariants: InvariantReport;
  let fleet: ChaosResult['fleet'] = null;
  let served: ChaosResult['served'] = null;
  try {
    log(`faulted: ${run.status} in ${run.seconds} s; checking invariants`);
    const t = performance.now();
    invariants = await checkInvariants(
      run.stack.config,
      run.client,
      campaignId,
      { campaignId: oracleId(campaignId), workflows: run.oracleWorkflows },
      baseline?.rewards ?? null,
      slotOfRun(run, options.async === true),
      options.async ? ASYNC_MAX_STALENESS : 0,
    );
    if (options.async) {
      fleet = rejoins(run.fired, await fleetChanges(run.client, campaignId, run.startedAt), run.fleetUrls[1]!);
      served = await Promise.all(
        run.fleet.policyServers.map(async (p, i) => ({
          url: run.fleetUrls[i]!,
          starts: servedVersionsOfLog(fs.existsSync(p.logFile) ? fs.readFileSync(p.logFile, 'utf8') : ''),
          atEnd: await fetch(`${run.fleetUrls[i]}/v1/models`)
            .then(async (r) =>
              String(((await r.json()) as { data: Array<{ policy_version: number }> }).data[0]!.policy_version),
            )
            .catch((err: unknown) => `unreachable (${(err as Error).message})`),
        })),
      );
    }
    log(`invariants checked (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  } finally {
    await run.close();
    // The cluster is of no use once checked; the logs, histories and artifacts stay for a look.
    removals.push(removeTree(path.join(run.stack.config.dataPath, 'pg')));
  }
  const result: ChaosResult = {
    mode,
    campaignId,
    steps,
    maxStaleness: options.async ? ASYNC_MAX_STALENESS : 0,
    fleet,
    served,
    stepsCompleted: run.state?.steps.length ?? 0,
    finished: run.status === 'done' && run.state?.phase === 'done',
    seconds: run.seconds,
    baselineSeconds: baseline?.run.seconds ?? null,
    planned: faults,
    fired: run.fired,
    crashes: [...(baseline?.run.crashes ?? []).map((c) => `baseline: ${c}`), ...run.crashes],
    slots: run.slots,
    baselineSlots: baseline?.run.slots ?? null,
    invariants,
    totalSeconds: Math.round((performance.now() - started) / 1000),
  };
  await Promise.all(removals);
  return result;
}

/** "KIND@SLOT" -> a planned fault; a bad one exits 2 naming it. */
function plannedFault(text: string): PlannedFault {
  const [kind, slot] = text.split('@');
  if (!FAULT_KINDS.includes(kind as FaultKind) || !slot) {
    console.error(`--fault ${text}: expected KIND@SLOT with KIND one of ${FAULT_KINDS.join(', ')}`);
    process.exit(2);
  }
  return { kind: kind as FaultKind, slot };
}

function stepsOf(text: string): number {
  const steps = Number(text);
  if (!Number.isInteger(steps) || steps < 1) {
    console.error(`--steps ${text}: expected a whole number of GRPO steps, at least 1`);
    process.exit(2);
  }
  return steps;
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  const { values } = parseArgs({
    options: {
      short: { type: 'boolean', default: false },
      async: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      dir: { type: 'string' },
      fault: { type: 'string', multiple: true },
      steps: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const misplaced = (values.fault ?? []).map(plannedFault).filter((f) => FLEET_FAULT_KINDS.includes(f.kind));
  if (misplaced.length && !values.async) {
    console.error(
      `--fault ${misplaced[0]!.kind}@${misplaced[0]!.slot}: needs --async (a rollout fleet of two servers)`,
    );
    process.exit(2);
  }
  process.env.FINALSTATE_LOG_LEVEL ??= 'WARN';
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const result = await runChaos({
    short: values.short!,
    async: values.async!,
    dir: path.resolve(values.dir ?? fromRoot('.data', 'chaos')),
    log,
    ...(values.fault ? { only: { faults: values.fault.map(plannedFault), steps: stepsOf(values.steps ?? '1') } } : {}),
  });
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else console.log(renderTable(result));
  process.exit(verdicts(result).every((v) => v.ok) ? 0 : 1);
}
