// What one fan-out's workflow history says about Temporal's share of each episode: per-episode queueing and execution,
// the slots left idle (while work was queued: dispatch; with nothing left to start: the drain of the last wave),
// workflow-task latency and the payload sizes. Used by bench/episodes.ts.
import type { temporal } from '@temporalio/proto';

type Event = temporal.api.history.v1.IHistoryEvent;

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
const bytes = (p: temporal.api.common.v1.IPayloads | null | undefined) =>
  (p?.payloads ?? []).reduce((sum, x) => sum + (x.data?.length ?? 0) + JSON.stringify(x.metadata ?? {}).length, 0);
export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

export interface FanOutHistory {
  episodes: number;
  perEpisode: { queuedMs: number; activityMs: number }[];
  /** First episode scheduled to last episode completed. */
  phaseMs: number;
  /** Slot time left idle while episodes waited in the queue (dispatch), and with none left to start (drain), per episode. */
  idleWhileQueuedMs: number;
  idleDrainMs: number;
  workflowTasks: number;
  workflowTaskMs: { p50: number; max: number };
  historyEvents: number;
  inputBytes: number;
  resultBytes: number;
}

/** Reads the runEpisode activities of a history run by a worker with `slots` slots. */
export function fanOutHistory(events: Event[], slots: number, activityType = 'runEpisode'): FanOutHistory {
  const scheduled = new Map<number, number>();
  const started = new Map<number, number>();
  const wftScheduled = new Map<number, number>();
  const wft: number[] = [];
  const perEpisode: FanOutHistory['perEpisode'] = [];
  const changes: { at: number; queued: number; busy: number }[] = [];
  let inputBytes = 0;
  let resultBytes = 0;
  for (const e of events) {
    const at = ms(e.eventTime);
    const s = e.activityTaskScheduledEventAttributes;
    if (s && s.activityType?.name === activityType) {
      scheduled.set(Number(e.eventId), at);
      inputBytes += bytes(s.input);
      changes.push({ at, queued: 1, busy: 0 });
    }
    const st = e.activityTaskStartedEventAttributes;
    if (st && scheduled.has(Number(st.scheduledEventId))) {
      started.set(Number(st.scheduledEventId), at);
      changes.push({ at, queued: -1, busy: 1 });
    }
    const c = e.activityTaskCompletedEventAttributes;
    if (c && scheduled.has(Number(c.scheduledEventId))) {
      const from = scheduled.get(Number(c.scheduledEventId))!;
      const begun = started.get(Number(c.scheduledEventId))!;
      perEpisode.push({ queuedMs: begun - from, activityMs: at - begun });
      resultBytes += bytes(c.result);
      changes.push({ at, queued: 0, busy: -1 });
    }
    if (e.workflowTaskScheduledEventAttributes) wftScheduled.set(Number(e.eventId), at);
    const w = e.workflowTaskCompletedEventAttributes;
    if (w) wft.push(at - wftScheduled.get(Number(w.scheduledEventId))!);
  }
  // Events come in history order; a started event is written with its dispatch time, so sort by time.
  changes.sort((a, b) => a.at - b.at);
  let queued = 0;
  let busy = 0;
  let last = changes[0]?.at ?? 0;
  let idleQueued = 0;
  let idleDrain = 0;
  let lastDone = last;
  for (const c of changes) {
    const idle = (c.at - last) * Math.max(0, slots - busy);
    if (queued > 0) idleQueued += idle;
    else idleDrain += idle;
    last = c.at;
    queued += c.queued;
    busy += c.busy;
    if (c.busy < 0) lastDone = c.at;
  }
  const n = perEpisode.length;
  return {
    episodes: n,
    perEpisode,
    phaseMs: lastDone - (changes[0]?.at ?? 0),
    idleWhileQueuedMs: idleQueued / n,
    idleDrainMs: idleDrain / n,
    workflowTasks: wft.length,
    workflowTaskMs: { p50: quantile(wft, 0.5), max: Math.max(...wft) },
    historyEvents: events.length,
    inputBytes: inputBytes / n,
    resultBytes: resultBytes / n,
  };
}
