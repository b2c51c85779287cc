import type { SlotTime } from './campaign.js';
import type { FaultKind, FiredFault, PlannedFault } from './faults.js';
import type { InvariantReport } from './invariants.js';

export interface ChaosResult {
  mode: 'full' | 'short';
  campaignId: string;
  steps: number;
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
};

/** "step-2/update" -> step 2, phase update; "probe" -> step 0, phase probe. */
function stepPhase(slot: string): string {
  const m = /^step-(\d+)\/(\w+)$/.exec(slot);
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
    `chaos run (${r.mode}): campaign ${r.campaignId}, ${r.steps} GRPO steps; faulted run ${r.seconds.toFixed(0)} s${r.baselineSeconds !== null ? `, fault-free baseline ${r.baselineSeconds.toFixed(0)} s` : ''}; command ${r.totalSeconds} s in all`,
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
      `| ${FAULT_LABELS[f.kind]} | ${stepPhase(f.slot)} | ${secs(f.at)} | ${secs(f.outageSeconds)} | ${secs(took)} | ${secs(base)} | ${added} |`,
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
      lines.push(`| ${FAULT_LABELS[f.kind]} | 0 | | | | |`);
      continue;
    }
    const equal = inv.baseline ? `${s.equal}/${s.compared}` : 'n/a (no baseline)';
    lines.push(
      `| ${FAULT_LABELS[f.kind]} | ${s.episodes} (${s.retried}) | ${s.lost} | ${s.duplicated} | ${s.misScored} | ${equal} |`,
    );
  }
  lines.push('', '| check | value | required |', '|---|---|---|');
  for (const v of verdicts(r)) lines.push(`| ${v.name} | ${v.value} | ${v.required}${v.ok ? '' : ' **FAILED**'} |`);
  lines.push(
    `| episodes (runEpisode activities) | ${inv.episodes} (${inv.oracleEpisodes} of them oracle): ${inv.retried} retried after a failed attempt, ${inv.resumed} resumed from a turn checkpoint, ${inv.refilled} refilled | |`,
  );
  if (inv.baseline)
    lines.push(
      `| rewards equal to the fault-free baseline | ${inv.baseline.equal}/${inv.baseline.compared} (retried episodes: ${inv.baseline.retriedEqual}/${inv.baseline.retriedCompared}) | |`,
    );
  const problems = [
    ...r.crashes.map((c) => `crash: ${c}`),
    ...inv.lost.map((p) => `lost: ${p}`),
    ...inv.duplicated.map((p) => `applied twice: ${p}`),
    ...inv.infraScored.map((p) => `infra scored: ${p}`),
    ...(inv.baseline?.lower ?? []).map((p) => `below baseline: ${p}`),
  ];
  if (problems.length) lines.push('', ...problems.slice(0, 40).map((p) => `- ${p}`));
  return lines.join('\n');
}
