import type { SlotTime } from './campaign.js';
import type { FaultKind, FiredFault, PlannedFault } from './faults.js';
import type { InvariantReport } from './invariants.js';
import { setBack, type Rejoin, type ServedVersions } from './fleet-report.js';

export interface ChaosResult {
  mode: 'full' | 'short' | 'async' | 'async-short';
  campaignId: string;
  steps: number;
  /** async.maxStaleness K of the campaign (0: synchronous steps). */
  maxStaleness: number;
  /** The asynchronous run: how each server a fleet fault took out came back. */
  fleet: Rejoin[] | null;
  /** The asynchronous run: the versions each rollout server served, by its own log, and serves at the end. */
  served?: ServedVersions[] | null;
  stepsCompleted: number;
  finished: boolean;
  seconds: number;
  baselineSeconds: number | null;
  planned: PlannedFault[];
  fired: FiredFault[];
  crashes: string[];
  slots: SlotTime[];
  baselineSlots: SlotTime[] | null;
  invariants: InvariantReport;
  totalSeconds: number;
}

const FAULT_LABELS: Record<FaultKind, string> = {
  'episode-worker-sigkill': 'SIGKILL episode worker mid-episode',
  'control-worker-sigkill': 'SIGKILL control worker',
  'gpu-worker-sigkill': 'SIGKILL gpu worker during an update',
  'temporal-restart': 'restart Temporal dev server',
  'postgres-restart': 'restart PostgreSQL',
  'policy-server-stop': 'stop policy server',
  'episode-worker-pause': 'pause episode worker past the heartbeat timeout (zombie)',
  'episode-worker-partition': 'partition episode worker from Temporal (zombie)',
  'grading-cancel': 'cancel the grading statement',
  'grading-postgres-restart': 'restart PostgreSQL during grading',
  'policy-server-stall': 'stall policy server past the episode clock',
  'episode-sessions-freeze': 'freeze episode database sessions (hung tools)',
  'gpu-worker-sigkill-overlapped': "SIGKILL gpu worker during an update, the next step's rollouts running",
  'rollout-server-sigkill': 'SIGKILL a rollout server mid-step (one of two)',
  'rollout-publish-fail': 'publish fails on one of two rollout servers',
  'rollout-restart-mid-publish':
    "a rollout server restarted while a publish to it is held, the next step's reconcile running",
};

/** A fault's label; with asynchronous steps, its K. */
const labelOf = (r: ChaosResult, kind: FaultKind) =>
  `${FAULT_LABELS[kind]}${r.maxStaleness > 0 ? ` (K = ${r.maxStaleness})` : ''}`;

/**
 * "step-2/update" -> step 2, phase update; "probe" -> step 0, phase probe. With asynchronous steps, also the slot
 * that ran beside it (step n's update beside step n+1's rollouts).
 */
function stepPhase(slot: string, overlapping = false): string {
  const m = /^step-(\d+)\/(\w+)$/.exec(slot);
  if (m && overlapping) {
    const n = Number(m[1]);
    if (m[2] === 'update') return `step ${n}, policy update, beside step ${n + 1}'s rollouts`;
    return n > 1 ? `step ${n}, rollouts, beside step ${n - 1}'s update` : `step ${n}, rollouts`;
  }
  if (m) return `step ${m[1]}, ${m[2] === 'update' ? 'policy update' : 'rollouts'}`;
  const e = /^eval-(\d+)$/.exec(slot);
  if (e) return `after step ${e[1]}, evaluation`;
  return slot === 'base-eval' ? 'step 0, base evaluation' : `step 0, ${slot}`;
}

const duration = (slots: SlotTime[] | null, slot: string) => {
  const s = slots?.find((x) => x.slot === slot);
  return s ? s.end - s.start : null;
};
const secs = (n: number | null) => (n === null ? 'n/a' : `${n.toFixed(1)} s`);

/** Each invariant with its value and whether it holds. */
export function verdicts(r: ChaosResult): { name: string; value: string; required: string; ok: boolean }[] {
  const inv = r.invariants;
  const unfired = r.planned.filter(
    (p) => !r.fired.some((f) => f.kind === p.kind && f.slot === p.slot && !f.detail.startsWith('injection failed')),
  );
  return [
    {
      name: 'faults injected',
      value: `${r.fired.length}/${r.planned.length}${unfired.length ? ` (missed: ${unfired.map((u) => `${u.kind} in ${u.slot}`).join(', ')})` : ''}`,
      required: 'all',
      ok: unfired.length === 0,
    },
    {
      name: 'processes that died on their own',
      value: String(r.crashes.length),
      required: '0',
      ok: r.crashes.length === 0,
    },
    {
      name: 'steps completed',
      value: `${r.stepsCompleted}/${r.steps}`,
      required: `${r.steps}`,
      ok: r.stepsCompleted === r.steps,
    },
    { name: 'campaign finished', value: r.finished ? 'yes' : 'no', required: 'yes', ok: r.finished },
    { name: 'episodes lost', value: String(inv.lost.length), required: '0', ok: inv.lost.length === 0 },
    {
      name: 'tool effects applied twice',
      value: `${inv.duplicated.length} (${inv.effectsChecked} episode databases replayed: ${inv.toolCalls} recorded calls, ${inv.writes} writes)`,
      required: '0',
      ok: inv.duplicated.length === 0,
    },
    ...(r.fleet
      ? [
          {
            name: 'rollout servers back through the fleet (reconcile or publish), never by hand',
            value: `${r.fleet.filter((j) => j.by && j.ejected !== false).length}/${r.fleet.length}${r.fleet
              .filter((j) => !j.by || j.ejected === false)
              .map(
                (j) =>
                  ` (${j.kind} in ${j.slot}: ${j.ejected === false ? 'not ejected by the publish' : 'never back'})`,
              )
              .join('')}`,
            required: 'all',
            ok: r.fleet.every((j) => j.by && j.ejected !== false),
          },
        ]
      : []),
    ...(r.served
      ? [
          {
            name: 'rollout servers set back a version (each by its own log)',
            value: `${r.served.filter((s) => setBack(s.starts).length > 0).length}${r.served
              .filter((s) => setBack(s.starts).length > 0)
              .map(
                (s) =>
                  ` (${s.url}: ${setBack(s.starts)
                    .map((v) => v.join(' → '))
                    .join('; ')})`,
              )
              .join('')}`,
            required: '0',
            ok: r.served.every((s) => setBack(s.starts).length === 0),
          },
          {
            name: 'rollout servers on the newest version at the end',
            value: `${r.served.filter((s) => s.atEnd === String(r.steps)).length}/${r.served.length}${r.served
              .filter((s) => s.atEnd !== String(r.steps))
              .map((s) => ` (${s.url}: ${s.atEnd})`)
              .join('')}`,
            required: `all on ${r.steps}`,
            ok: r.served.every((s) => s.atEnd === String(r.steps)),
          },
        ]
      : []),
    {
      name: 'recorded turns without the version that served them, or outside their window',
      value: `${inv.turnVersions.problems.length} (of ${inv.turnVersions.turns} turns of the campaign's episode records)`,
      required: '0',
      ok: inv.turnVersions.problems.length === 0,
    },
    {
      name: 'infrastructure failures scored as task failures',
      value: `${inv.infraScored.length + (inv.baseline?.lower.length ?? 0)}${inv.baseline ? ` (retried episodes scoring below the baseline: ${inv.baseline.lower.length})` : ''}`,
      required: '0',
      ok: inv.infraScored.length === 0 && (inv.baseline?.lower.length ?? 0) === 0,
    },
  ];
}

export function renderTable(r: ChaosResult): string {
  const inv = r.invariants;
  const lines = [
    `chaos run (${r.mode}): campaign ${r.campaignId}, ${r.steps} GRPO steps${r.maxStaleness > 0 ? ` (async.maxStaleness ${r.maxStaleness}, two rollout servers)` : ''}; faulted run ${r.seconds.toFixed(0)} s${r.baselineSeconds !== null ? `, fault-free baseline ${r.baselineSeconds.toFixed(0)} s` : ''}; command ${r.totalSeconds} s in all`,
    '',
    '| fault | when (step, phase) | at | outage | phase took | baseline | added |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const f of r.fired) {
    const took = duration(r.slots, f.slot);
    const base = duration(r.baselineSlots, f.slot);
    const added =
      took !== null && base !== null ? `${took - base >= 0 ? '+' : ''}${(took - base).toFixed(1)} s` : 'n/a';
    lines.push(
      `| ${labelOf(r, f.kind)} | ${stepPhase(f.slot, r.maxStaleness > 0)} | ${secs(f.at)} | ${secs(f.outageSeconds)} | ${secs(took)} | ${secs(base)} | ${added} |`,
    );
  }
  lines.push(
    '',
    '| fault | episodes (retried) | lost | applied twice | mis-scored | rewards equal to the baseline |',
    '|---|---|---|---|---|---|',
  );
  for (const f of r.fired) {
    const s = inv.bySlot[f.slot];
    if (!s) {
      lines.push(`| ${labelOf(r, f.kind)} | 0 | | | | |`);
      continue;
    }
    const equal = inv.baseline ? `${s.equal}/${s.compared}` : 'n/a (no baseline)';
    lines.push(
      `| ${labelOf(r, f.kind)} | ${s.episodes} (${s.retried}) | ${s.lost} | ${s.duplicated} | ${s.misScored} | ${equal} |`,
    );
  }
  lines.push('', '| check | value | required |', '|---|---|---|');
  for (const v of verdicts(r)) lines.push(`| ${v.name} | ${v.value} | ${v.required}${v.ok ? '' : ' **FAILED**'} |`);
  lines.push(
    `| episodes (runEpisode activities) | ${inv.episodes} (${inv.oracleEpisodes} of them oracle): ${inv.retried} retried after a failed attempt, ${inv.resumed} resumed from a turn checkpoint, ${inv.refilled} refilled | |`,
  );
  if (inv.baseline)
    lines.push(
      `| rewards equal to the fault-free baseline | ${inv.baseline.equal}/${inv.baseline.compared} (retried episodes: ${inv.baseline.retriedEqual}/${inv.baseline.retriedCompared})${inv.baseline.otherVersions > 0 ? `; ${inv.baseline.otherVersions} not compared: other policy versions sampled them than in the baseline` : ''} | |`,
    );
  for (const j of r.fleet ?? [])
    lines.push(
      `| ${FAULT_LABELS[j.kind]}: server back | ${j.by ? `${j.by.kind === 'republished' ? "the fleet's reconcile" : 'a publish'} (${j.by.child.slice(j.by.child.lastIndexOf('/') + 1)}) made it serve version ${j.by.version} at ${secs(j.by.at)}` : 'never'}${j.ejected ? `, after the step's publish ejected it` : ''} | |`,
    );
  for (const s of r.served ?? [])
    lines.push(
      `| ${s.url}: versions served, by its log | ${s.starts.map((v) => v.join(' → ')).join('; restarted: ')}; serves ${s.atEnd} at the end | |`,
    );
  const problems = [
    ...r.crashes.map((c) => `crash: ${c}`),
    ...inv.turnVersions.problems.map((p) => `turn version: ${p}`),
    ...inv.lost.map((p) => `lost: ${p}`),
    ...inv.duplicated.map((p) => `applied twice: ${p}`),
    ...inv.infraScored.map((p) => `infra scored: ${p}`),
    ...(inv.baseline?.lower ?? []).map((p) => `below baseline: ${p}`),
  ];
  if (problems.length) lines.push('', ...problems.slice(0, 40).map((p) => `- ${p}`));
  return lines.join('\n');
}
