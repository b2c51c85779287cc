import pg from 'pg';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { EnvironmentBackend, type Episode } from '../../environment/backend.js';
import { defaultRegistry } from '../../workers/registry.js';
import { takeSnapshot, snapshotHash } from '../../environment/snapshot.js';
import { EpisodeToolExecutor } from '../../environment/tool-executor.js';
import type { LoadedConfig } from '../../schemas/config.js';
import { withClient } from '../../infra/stack/postgres.js';
import { connectionConfig } from '../../environment/connection.js';
import { TaskCatalog } from '../../runtime/episode/task-catalog.js';
import type { EpisodeOutcome, EpisodeRequest } from '../../schemas/episode.js';
import type { Task } from '../../schemas/task.js';
import { eventsOfAllRuns } from '../pipeline/histories.js';
import { loadFinalStates, type FinalState } from './final-states.js';
import { oldestUsableVersion, versionNumber } from '../../core/policy-versions.js';

/** One runEpisode activity as Temporal's history tells it: what was asked, how it ended, after how many attempts. */
export interface EpisodeActivity {
  child: string;
  request: EpisodeRequest;
  outcome: EpisodeOutcome | null;
  failed: boolean;
  attempts: number;
  /** When it was scheduled and when its last attempt ended (epoch ms), to tell which phases of the campaign it ran in. */
  scheduledAt: number;
  closedAt: number;
}

/**
 * Every runEpisode activity of every child workflow the campaign started, and of the `others` (workflows that run
 * episodes themselves), read from the histories (all runs).
 */
export async function episodeActivities(
  client: Client,
  campaignId: string,
  others: string[] = [],
): Promise<{ children: string[]; activities: EpisodeActivity[] }> {
  const children = [
    ...(await eventsOfAllRuns(client, campaignId)).flatMap(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [],
    ),
    ...others,
  ];
  const activities: EpisodeActivity[] = [];
  for (const child of children) {
    const scheduled = new Map<string, EpisodeActivity>();
    for (const e of await eventsOfAllRuns(client, child)) {
      const id = String(e.eventId);
      const s = e.activityTaskScheduledEventAttributes;
      const time = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
      if (s?.activityType?.name === 'runEpisode') {
        const request = defaultPayloadConverter.fromPayload<EpisodeRequest>(s.input!.payloads![0]!);
        const activity: EpisodeActivity = {
          child,
          request,
          outcome: null,
          failed: false,
          attempts: 1,
          scheduledAt: time,
          closedAt: time,
        };
        scheduled.set(id, activity);
        activities.push(activity);
      }
      const started = e.activityTaskStartedEventAttributes;
      if (started && scheduled.has(String(started.scheduledEventId)))
        scheduled.get(String(started.scheduledEventId))!.attempts = started.attempt ?? 1;
      const completed = e.activityTaskCompletedEventAttributes;
      const done = completed && scheduled.get(String(completed.scheduledEventId));
      if (done) {
        done.outcome = defaultPayloadConverter.fromPayload<EpisodeOutcome>(completed.result!.payloads![0]!);
        done.closedAt = time;
      }
      const ended =
        e.activityTaskFailedEventAttributes ??
        e.activityTaskTimedOutEventAttributes ??
        e.activityTaskCanceledEventAttributes;
      const gone = ended && scheduled.get(String(ended.scheduledEventId));
      if (gone) {
        gone.failed = true;
        gone.closedAt = time;
      }
    }
  }
  return { children, activities };
}

export interface InvariantReport {
  /** runEpisode activities in the histories, and how many of them were retried after a failed attempt. */
  episodes: number;
  retried: number;
  resumed: number;
  /** Activities whose retries were spent, in a GRPO step: their group was discarded and refilled. */
  refilled: number;
  /** Planned episodes without a scored result row (and record) that matches the history: must be 0. */
  lost: string[];
  /** Effects applied twice, or records that disagree with the episode database: must be 0. */
  duplicated: string[];
  /** Episodes checked against a replay of their recorded calls, and the tool calls they hold. */
  effectsChecked: number;
  toolCalls: number;
  writes: number;
  /** Oracle episodes among them (each must earn 1). */
  oracleEpisodes: number;
  /** Infrastructure failures scored as task failures: must be 0. */
  infraScored: string[];
  /**
   * Rewards compared with the fault-free baseline run (same campaign id, same seeds): equal / compared. Only an
   * episode whose turns the same policy versions sampled as in the baseline is compared; with asynchronous steps which
   * version a turn meets depends on timing, and `otherVersions` counts those left out.
   */
  baseline: {
    compared: number;
    equal: number;
    retriedCompared: number;
    retriedEqual: number;
    lower: string[];
    otherVersions: number;
  } | null;
  /** The same, per phase of the campaign (see `slotOf`): what each fault's row in the table reports. */
  bySlot: Record<string, SlotInvariants>;
  /**
   * The campaign's recorded turns (its episode records), and those that name no version that served them or one
   * outside the episode's window (a step u: [u - 1 - K, u - 1]; an evaluation after step n: n; the probe: 0).
   */
  turnVersions: { turns: number; problems: string[] };
}

export interface SlotInvariants {
  episodes: number;
  retried: number;
  lost: number;
  duplicated: number;
  /** Infrastructure failures scored as task failures, retried episodes below the baseline included. */
  misScored: number;
  compared: number;
  equal: number;
}

/**
 * Which phases of the campaign an episode belongs to: by when it was scheduled, one or none; with asynchronous steps,
 * every phase it ran in (two run beside each other).
 */
export type SlotOf = (activity: EpisodeActivity) => string[];

interface StoredRow {
  result_set: string;
  episode_id: string;
  reward: number;
  error: string | null;
}

export interface StoredEpisode {
  episode_id: string;
  reward: number;
  error: string | null;
  finish_reason: string;
  resumed: number;
  tool_calls: { index: number; tool: string; isError: boolean }[];
}

/** The episode records of the campaigns, with what the checks read of them. */
export async function storedEpisodes(pool: pg.Pool, campaignIds: string[]): Promise<StoredEpisode[]> {
  return (
    await pool.query<StoredEpisode>(
      `SELECT episode_id, reward, error, finish_reason, json_array_length(record->'resumedAt') AS resumed,
              (SELECT coalesce(json_agg(json_build_object('index', c->'index', 'tool', c->'tool', 'isError', c->'isError')), '[]'::json) FROM json_array_elements(record->'toolCalls') c) AS tool_calls
       FROM episodes WHERE campaign_id = ANY($1)`,
      [campaignIds],
    )
  ).rows;
}

/** What the baseline comparison reads of one scored episode: its reward and the policy versions that sampled it. */
export interface ScoredEpisode {
  reward: number;
  /** EpisodeOutcome.policyVersion: the versions of its turns ("2" or "2,3"); empty for the oracle. */
  versions: string;
}

/** Every scored row's reward and its episode's policy versions, by episode id. */
export async function scoredRewards(config: LoadedConfig, campaignId: string): Promise<Map<string, ScoredEpisode>> {
  return withClient(config, undefined, async (c) => {
    const rows = await c.query<StoredRow & { versions: string | null }>(
      `SELECT episode_id, reward, row->>'policyVersion' AS versions
       FROM campaign_result_rows WHERE campaign_id = $1 AND error IS NULL`,
      [campaignId],
    );
    return new Map(rows.rows.map((r) => [r.episode_id, { reward: r.reward, versions: r.versions ?? '' }]));
  });
}

/**
 * Reads the campaign back from Temporal's histories, the control database and the kept episode databases, and
 * checks the three invariants: no planned episode lost, no tool effect applied twice, no infrastructure failure
 * scored as a task failure.
 */
export async function checkInvariants(
  config: LoadedConfig,
  client: Client,
  campaignId: string,
  oracle: { campaignId: string; workflows: string[] },
  baseline: Map<string, ScoredEpisode> | null,
  slotOf: SlotOf = () => [],
  maxStaleness = 0,
): Promise<InvariantReport> {
  const { activities } = await episodeActivities(client, campaignId, oracle.workflows);
  const ids = [campaignId, oracle.campaignId];
  const pool = new pg.Pool({ ...connectionConfig(config), max: 2 });
  try {
    const rows = (
      await pool.query<StoredRow>(
        'SELECT result_set, episode_id, reward, error FROM campaign_result_rows WHERE campaign_id = ANY($1)',
        [ids],
      )
    ).rows;
    const records = await storedEpisodes(pool, ids);
    const rowsOf = new Map<string, StoredRow[]>();
    for (const r of rows) rowsOf.set(r.episode_id, [...(rowsOf.get(r.episode_id) ?? []), r]);
    const recordOf = new Map(records.map((r) => [r.episode_id, r]));

    const lost: string[] = [];
    const duplicated: string[] = [];
    const infraScored: string[] = [];
    let refilled = 0;
    for (const a of activities) {
      const id = a.request.episodeId;
      const found = rowsOf.get(id) ?? [];
      if (found.length > 1) duplicated.push(`${id}: ${found.length} result rows`);
      if (!a.outcome) {
        if (a.child.includes('/step-'))
          refilled += 1; // its group was discarded and refilled: a step short of groups fails, and the campaign with it
        else lost.push(`${id}: no outcome after ${a.attempts} attempts (${a.child})`);
        continue;
      }
      const row = found[0];
      const record = recordOf.get(id);
      if (!row) lost.push(`${id}: completed in Temporal, no result row`);
      else if (row.error !== null) lost.push(`${id}: result row with error ${row.error}`);
      else if (row.reward !== a.outcome.reward)
        lost.push(`${id}: result row reward ${row.reward}, activity returned ${a.outcome.reward}`);
      if (!record) lost.push(`${id}: completed in Temporal, no episode record`);
      else if (record.reward !== a.outcome.reward)
        lost.push(`${id}: episode record reward ${record.reward}, activity returned ${a.outcome.reward}`);
      if (a.request.campaignId === oracle.campaignId && a.outcome.reward !== 1)
        infraScored.push(`${id}: the oracle scored ${a.outcome.reward} (finish reason ${a.outcome.finishReason})`);
      if (a.outcome.error) infraScored.push(`${id}: outcome carries error ${a.outcome.error}`);
      if (a.outcome.reward === 0 && a.outcome.finishReason === 'timeout')
        infraScored.push(`${id}: reward 0 with finish reason timeout (the episode clock ran through an outage?)`);
    }
    const activityIds = new Set(activities.map((a) => a.request.episodeId));
    for (const r of rows)
      if (!activityIds.has(r.episode_id)) duplicated.push(`${r.episode_id}: result row without a runEpisode activity`);
    for (const r of records)
      if (!activityIds.has(r.episode_id))
        duplicated.push(`${r.episode_id}: episode record without a runEpisode activity`);

    const effects = await checkEffects(
      config,
      pool,
      activities.filter((a) => a.outcome),
      recordOf,
    );
    duplicated.push(...effects.problems);

    const bySlot: Record<string, SlotInvariants> = {};
    const slotsOfId = new Map<string, string[]>();
    for (const a of activities) {
      const slots = slotOf(a);
      slotsOfId.set(a.request.episodeId, slots);
      for (const slot of slots) {
        const counts = (bySlot[slot] ??= {
          episodes: 0,
          retried: 0,
          lost: 0,
          duplicated: 0,
          misScored: 0,
          compared: 0,
          equal: 0,
        });
        counts.episodes += 1;
        if (a.attempts > 1) counts.retried += 1;
      }
    }
    /** Problems name their episode first ("<id>: ..."). */
    const countBySlot = (problems: string[], key: 'lost' | 'duplicated' | 'misScored') => {
      for (const p of problems)
        for (const slot of slotsOfId.get(p.slice(0, p.indexOf(':'))) ?? []) bySlot[slot]![key] += 1;
    };

    let comparison: InvariantReport['baseline'] = null;
    if (baseline) {
      comparison = { compared: 0, equal: 0, retriedCompared: 0, retriedEqual: 0, lower: [], otherVersions: 0 };
      for (const a of activities) {
        const scored = baseline.get(a.request.episodeId);
        if (!a.outcome || scored === undefined) continue;
        if ((a.outcome.policyVersion ?? '') !== scored.versions) {
          comparison.otherVersions += 1;
          continue;
        }
        const expected = scored.reward;
        const touched = a.attempts > 1 || (recordOf.get(a.request.episodeId)?.resumed ?? 0) > 0;
        comparison.compared += 1;
        if (a.outcome.reward === expected) comparison.equal += 1;
        for (const slot of slotsOfId.get(a.request.episodeId) ?? []) {
          bySlot[slot]!.compared += 1;
          if (a.outcome.reward === expected) bySlot[slot]!.equal += 1;
        }
        if (touched) {
          comparison.retriedCompared += 1;
          if (a.outcome.reward === expected) comparison.retriedEqual += 1;
          else if (a.outcome.reward < expected)
            comparison.lower.push(
              `${a.request.episodeId}: reward ${a.outcome.reward} after ${a.attempts} attempts, ${expected} without faults`,
            );
        }
      }
    }
    countBySlot(lost, 'lost');
    countBySlot(duplicated, 'duplicated');
    countBySlot([...infraScored, ...(comparison?.lower ?? [])], 'misScored');
    return {
      bySlot,
      episodes: activities.length,
      oracleEpisodes: activities.filter((a) => a.request.campaignId === oracle.campaignId).length,
      retried: activities.filter((a) => a.attempts > 1).length,
      resumed: records.filter((r) => r.resumed > 0).length,
      refilled,
      lost,
      duplicated,
      effectsChecked: effects.checked,
      toolCalls: effects.toolCalls,
      writes: effects.writes,
      infraScored,
      baseline: comparison,
      turnVersions: await turnVersions(pool, campaignId, maxStaleness),
    };
  } finally {
    await pool.end();
  }
}

/** The versions that served the campaign's recorded turns, each checked against its episode's window. */
export async function turnVersions(
  pool: pg.Pool,
  campaignId: string,
  maxStaleness: number,
): Promise<InvariantReport['turnVersions']> {
  const { rows } = await pool.query<{ episode_id: string; versions: Array<string | null> }>(
    `SELECT episode_id, (SELECT coalesce(json_agg(t->>'policyVersion'), '[]'::json) FROM json_array_elements(record->'turns') t) AS versions
     FROM episodes WHERE campaign_id = $1`,
    [campaignId],
  );
  const problems: string[] = [];
  let turns = 0;
  for (const { episode_id: id, versions } of rows) {
    const step = /\/step-(\d+)(-replay-\d+)?\//.exec(id)?.[1];
    const evaluated = /\/eval-step-(\d+)\//.exec(id)?.[1];
    const [from, to] =
      step !== undefined
        ? [oldestUsableVersion(Number(step), maxStaleness), Number(step) - 1]
        : evaluated !== undefined
          ? [Number(evaluated), Number(evaluated)]
          : [0, 0];
    for (const [i, v] of versions.entries()) {
      turns += 1;
      if (!v) problems.push(`${id}: turn ${i} names no version that served it`);
      else if (versionNumber(v) < from || versionNumber(v) > to)
        problems.push(`${id}: turn ${i} served by version ${v}, outside its window ${from}..${to}`);
    }
  }
  return { turns, problems };
}

/**
 * Effects applied at most once, per episode: its tool-call records are indexed 0..n-1 once each and agree with the
 * episode record (same tools, same indexes); and its final state equals a replay of those recorded calls, in order,
 * on a freshly provisioned database of the same task. A call whose effect ran twice (or ran without its record)
 * leaves a state the replay does not give. The records and the final state are read from the episode database when
 * it is still there, else from what the fleet captured just before tearing it down (final-states.ts): the chaos
 * fleet resets and reuses its databases.
 */
export async function checkEffects(
  config: LoadedConfig,
  control: pg.Pool,
  activities: EpisodeActivity[],
  recordOf: Map<string, StoredEpisode>,
) {
  const backend = new EnvironmentBackend(config, await defaultRegistry({ config }), { sparesPerTemplate: 0 });
  const tasks = new TaskCatalog();
  const captured = await loadFinalStates(
    control,
    activities.map((a) => a.request.episodeId),
  );
  const problems: string[] = [];
  let checked = 0;
  let toolCalls = 0;
  let writes = 0;
  let replays = 0;
  const snapshotOf = (episode: Episode) =>
    backend.transaction(
      episode,
      async (c) => snapshotHash(await takeSnapshot(c, episode.domain, episode.catalog)),
      'BEGIN READ ONLY',
    );
  /** The final state of `calls` replayed on a fresh database of the task; no calls (the common case) is cached per task. */
  const initialStates = new Map<string, Promise<string>>();
  const replay = async (task: Task, calls: FinalState['toolCalls'], id: string) => {
    const key = `${task.domain}/${task.id}`;
    if (calls.length === 0 && initialStates.has(key)) return initialStates.get(key)!;
    const run = (async () => {
      const fresh = await backend.provision(`chaos-replay-${process.pid}-${replays++}`, task);
      try {
        const executor = new EpisodeToolExecutor(backend, fresh);
        for (const r of calls) {
          const out = await executor.call(r.tool, r.arguments);
          if (!out.isError && !r.is_error && !fresh.domain.tools.find((t) => t.name === r.tool)?.readOnly) writes += 1;
          if (out.isError !== r.is_error)
            problems.push(
              `${id}: call ${r.call_index} (${r.tool}) was ${r.is_error ? 'an error' : 'answered'} in the episode, ${out.isError ? 'an error' : 'answered'} on replay`,
            );
        }
        return await snapshotOf(fresh);
      } finally {
        await backend.teardown(fresh);
      }
    })();
    if (calls.length === 0) initialStates.set(key, run);
    return run;
  };
  /** The episode's records and final state: from its database if it is still there, else from the capture. */
  const finalStateOf = async (id: string, task: Task): Promise<FinalState | undefined> => {
    const exists = await control.query('SELECT 1 FROM pg_database WHERE datname = $1', [backend.names(id).database]);
    if (exists.rowCount !== 1) return captured.get(id);
    const episode = await backend.open(id, task);
    try {
      const calls = (
        await episode.pool.query<FinalState['toolCalls'][number]>(
          'SELECT call_index, tool, arguments, is_error FROM _finalstate_tool_calls ORDER BY call_index',
        )
      ).rows;
      return { episodeId: id, toolCalls: calls, stateSha256: await snapshotOf(episode) };
    } finally {
      await backend.detach(episode);
    }
  };
  const checkOne = async (a: EpisodeActivity) => {
    const id = a.request.episodeId;
    const task = tasks.get(a.request.taskSet, a.request.taskId);
    const final = await finalStateOf(id, task);
    if (!final) {
      problems.push(`${id}: neither its episode database nor a capture of its final state was kept`);
      return;
    }
    const recorded = final.toolCalls;
    toolCalls += recorded.length;
    if (recorded.some((r, i) => r.call_index !== i))
      problems.push(
        `${id}: tool-call indexes ${recorded.map((r) => r.call_index).join(',')} are not 0..${recorded.length - 1}`,
      );
    const inRecord = recordOf.get(id)?.tool_calls ?? [];
    const same =
      inRecord.length === recorded.length &&
      inRecord.every(
        (c, i) =>
          c.index === recorded[i]!.call_index && c.tool === recorded[i]!.tool && c.isError === recorded[i]!.is_error,
      );
    if (!same)
      problems.push(
        `${id}: episode record lists calls ${inRecord.map((c) => `${c.index}:${c.tool}`).join(',')}, database holds ${recorded.map((r) => `${r.call_index}:${r.tool}`).join(',')}`,
      );
    if ((await replay(task, recorded, id)) !== final.stateSha256)
      problems.push(
        `${id}: final state differs from a replay of its ${recorded.length} recorded calls (an effect applied twice or without its record)`,
      );
    checked += 1;
  };
  try {
    const queue = [...activities];
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let a = queue.shift(); a; a = queue.shift()) await checkOne(a);
      }),
    );
  } finally {
    await backend.close();
  }
  return { problems, checked, toolCalls, writes };
}
