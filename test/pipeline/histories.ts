import fs from 'node:fs';
import path from 'node:path';
import type { Client, HistoryAndWorkflowId, WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { fromRoot } from '../../core/paths.js';

export const HISTORIES_DIR = fromRoot('test', 'fixtures', 'histories');

const History = proto.temporal.api.history.v1.History;

/** A recorded history file: the run's events as binary protobuf (base64), plus what a reader needs to know. */
interface HistoryFile {
  workflowId: string;
  workflowType: string;
  events: number;
  encoding: 'protobuf-base64';
  history: string;
}

// The files hold binary protobuf rather than proto-JSON: in this install @temporalio/common's protojson (protobufjs 8)
// cannot read the types of @temporalio/proto (resolved to protobufjs 7), so historyToJSON/historyFromJSON throw.

/** Save the history of one workflow run as test/fixtures/histories/<name>.json. */
export async function saveHistory(client: Client, name: string, workflowId: string, runId?: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const file: HistoryFile = {
    workflowId,
    workflowType: history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? 'unknown',
    events: history.events?.length ?? 0,
    encoding: 'protobuf-base64',
    history: Buffer.from(History.encode(history).finish()).toString('base64'),
  };
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  const out = path.join(HISTORIES_DIR, `${name}.json`);
  fs.writeFileSync(out, `${JSON.stringify(file, null, 1)}\n`);
  return out;
}

/** Every recorded history, for Worker.runReplayHistories. */
export function loadHistories(
  dir = HISTORIES_DIR,
): Array<HistoryAndWorkflowId & { name: string; workflowType: string }> {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const file = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as HistoryFile;
      return {
        name: f,
        workflowId: file.workflowId,
        workflowType: file.workflowType,
        history: History.decode(Buffer.from(file.history, 'base64')),
      };
    });
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** The events of every run of a workflow, oldest run first: the latest run, then back along continueAsNew. */
export async function eventsOfAllRuns(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  const runs: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    runs.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) return runs.flat();
  }
}

/** A history event's timestamp in epoch milliseconds (NaN when it has none). */
export const millis = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : NaN;

/**
 * An activity of workflow `workflowId` (the first of type `activityType`): the attempt it ended on (its history keeps
 * the last attempt's start) and the milliseconds from its scheduling to the end of the workflow.
 */
export async function activityEnd(
  client: Client,
  workflowId: string,
  activityType: string,
): Promise<{ attempt: number; toWorkflowEndMs: number }> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activityType);
  if (!scheduled) throw new Error(`${workflowId} scheduled no ${activityType}`);
  const started = events.find(
    (e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId ?? -1) === Number(scheduled.eventId),
  );
  const end = events[events.length - 1]!;
  return {
    attempt: started?.activityTaskStartedEventAttributes?.attempt ?? 0,
    toWorkflowEndMs: millis(end.eventTime) - millis(scheduled.eventTime),
  };
}
