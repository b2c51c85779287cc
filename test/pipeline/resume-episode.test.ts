import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../workers/config.js';
import { InfrastructureError } from '../../core/errors.js';
import { withClient } from '../../infra/stack/postgres.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { policyFor } from '../../runtime/episode/episode-runner.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import type { Task } from '../../schemas/task.js';
import { uniqueName } from '../helpers/index.js';
import {
  countEpisodeRows,
  freshEpisodeCounts,
  RESUME_TASK_ID,
  RESUME_TASK_SET,
} from '../../testkit/pipeline/oracle-episodes.js';
import { SlowedPolicy } from '../../testkit/pipeline/slowed-policy.js';

// The real DatabaseEpisodeRunner on the shared PostgreSQL, with the domain's tools over a real MCP session and the
// oracle as the agent. An attempt is cut off by an InfrastructureError thrown from the policy (the runner keeps the
// episode database, as for any outage), then the same episode id runs again. The worker-kill version, with two
// worker processes and Temporal retrying the activity, is resume-worker.test.ts.
const config = loadConfig();
let runtime: EpisodeRuntime;
let task: Task;
/** Per episode id: what the policy of the current attempt does before turn n. */
const plans = new Map<string, (turn: number) => Promise<void>>();
const policies = new Map<string, SlowedPolicy[]>();
const episodeIds: string[] = [];
let baseline: { tickets: number; refunds: number };

before(async () => {
  runtime = await createEpisodeRuntime(config, {
    backend: { sparesPerTemplate: 0 },
    keepEpisodeDatabases: true,
    policyFor: (request, t) => {
      const policy = new SlowedPolicy(
        policyFor(request, t),
        (turn) => plans.get(request.episodeId)?.(turn) ?? Promise.resolve(),
      );
      policies.set(request.episodeId, [...(policies.get(request.episodeId) ?? []), policy]);
      return policy;
    },
  });
  task = runtime.tasks.get(RESUME_TASK_SET, RESUME_TASK_ID);
  const fresh = await freshEpisodeCounts(config, runtime.backend, task);
  baseline = { tickets: fresh.tickets, refunds: fresh.refunds };
});

after(async () => {
  for (const id of episodeIds)
    await runtime.backend
      .dropByName(runtime.backend.names(id).database, runtime.backend.names(id).role)
      .catch(() => undefined);
  if (episodeIds.length) await runtime.control.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [episodeIds]);
  await runtime.close();
});

function request(): EpisodeRequest {
  const episodeId = uniqueName('resume-episode');
  episodeIds.push(episodeId);
  return EpisodeRequest.parse({
    episodeId,
    taskId: RESUME_TASK_ID,
    taskSet: RESUME_TASK_SET,
    trial: 0,
    policy: { kind: 'oracle' },
    seed: 3,
  });
}

const crashAt =
  (crashTurn: number, onTurn: (turn: number) => Promise<void> = async () => undefined) =>
  async (turn: number) => {
    await onTurn(turn);
    if (turn === crashTurn) throw new InfrastructureError(`simulated crash before turn ${turn}`, 'test');
  };

test('a retried attempt resumes from its last checkpointed turn: the turns before are not asked again, no effect runs twice', async () => {
  assert.deepEqual(
    task.golden.map((c) => c.tool),
    ['find_traveler_by_email', 'get_booking', 'create_ticket', 'cancel_hotel_stay', 'issue_refund', 'update_ticket'],
  );
  const req = request();
  plans.set(req.episodeId, crashAt(5)); // four turns done: the ticket is created and the stay cancelled
  await assert.rejects(runtime.runner.run(req), /simulated crash before turn 5/);
  const cut = await countEpisodeRows(config, req.episodeId);
  assert.equal(cut.checkpointTurns, 4);
  assert.equal(cut.toolCalls.length, 4);

  plans.delete(req.episodeId);
  const outcome = await runtime.runner.run(req);
  assert.equal(outcome.reward, 1, `finish ${outcome.finishReason}`);
  const record = (await new EpisodeStore(runtime.control).load(req.episodeId))!;
  const [first, second] = policies.get(req.episodeId)!;
  assert.equal(first!.asked, 5);
  assert.deepEqual(record.resumedAt, [4]);
  assert.equal(
    second!.asked,
    record.turns.length - 4,
    'the resumed attempt asked only for the turns after the checkpoint',
  );

  const done = await countEpisodeRows(config, req.episodeId);
  assert.deepEqual(
    done.toolCalls.map((c) => c.tool),
    task.golden.map((c) => c.tool),
    'one recorded call per golden call, none twice',
  );
  assert.deepEqual(
    done.toolCalls.map((c) => c.callIndex),
    [0, 1, 2, 3, 4, 5],
  );
  assert.equal(done.tickets, baseline.tickets + 1, 'one ticket row');
  assert.equal(done.refunds, baseline.refunds + 1, 'one refund row');
  assert.deepEqual(
    record.toolCalls.map((c) => c.index),
    [0, 1, 2, 3, 4, 5],
  );
  const calls = record.transcript.turns.flatMap((t) => (t.role === 'assistant' ? t.toolCalls.map((c) => c.tool) : []));
  assert.deepEqual(
    calls,
    task.golden.map((c) => c.tool),
    'the transcript holds every call once',
  );
  assert.equal(record.transcript.turns.filter((t) => t.role === 'tool').length, 6);
});

test('a turn whose call committed but whose checkpoint did not is sampled again, and its call is answered from the record', async () => {
  const req = request();
  let checkpointOfTurn3: unknown;
  // Before turn 4 the checkpoint of turn 3 is the latest; keep it, let turn 4 (cancel_hotel_stay) commit, crash before
  // turn 5, then put the turn-3 checkpoint back: exactly a worker that died between the call's commit and the checkpoint.
  plans.set(
    req.episodeId,
    crashAt(5, async (turn) => {
      if (turn === 4)
        checkpointOfTurn3 = await withClient(
          config,
          runtime.backend.names(req.episodeId).database,
          async (c) => (await c.query('SELECT checkpoint::text AS c FROM _finalstate_checkpoint')).rows[0].c,
        );
    }),
  );
  await assert.rejects(runtime.runner.run(req), /simulated crash/);
  await withClient(config, runtime.backend.names(req.episodeId).database, (c) =>
    c.query('UPDATE _finalstate_checkpoint SET agent_turns = 3, checkpoint = $1::json', [checkpointOfTurn3]),
  );
  const before = await countEpisodeRows(config, req.episodeId);
  assert.equal(before.toolCalls.length, 4, 'cancel_hotel_stay committed');
  assert.equal(before.checkpointTurns, 3);

  plans.delete(req.episodeId);
  const outcome = await runtime.runner.run(req);
  assert.equal(outcome.reward, 1, 'a second cancel_hotel_stay would have been refused (the stay is already cancelled)');
  const record = (await new EpisodeStore(runtime.control).load(req.episodeId))!;
  assert.deepEqual(record.resumedAt, [3]);
  assert.equal(policies.get(req.episodeId)![1]!.asked, record.turns.length - 3, 'turn 4 was sampled again');
  const done = await countEpisodeRows(config, req.episodeId);
  assert.deepEqual(
    done.toolCalls.map((c) => c.tool),
    task.golden.map((c) => c.tool),
  );
  assert.equal(done.tickets, baseline.tickets + 1);
  assert.equal(done.refunds, baseline.refunds + 1);
  const cancel = record.toolCalls.find((c) => c.tool === 'cancel_hotel_stay')!;
  assert.equal(cancel.isError, false, 'the replayed call got the recorded success, not a refusal');
});

test('an attempt cut off before its first checkpoint starts over, and every committed call is answered from its record', async () => {
  const req = request();
  plans.set(req.episodeId, crashAt(4));
  await assert.rejects(runtime.runner.run(req), /simulated crash/);
  await withClient(config, runtime.backend.names(req.episodeId).database, (c) =>
    c.query('DELETE FROM _finalstate_checkpoint'),
  );
  plans.delete(req.episodeId);
  const outcome = await runtime.runner.run(req);
  assert.equal(outcome.reward, 1);
  const record = (await new EpisodeStore(runtime.control).load(req.episodeId))!;
  assert.deepEqual(record.resumedAt, []);
  const done = await countEpisodeRows(config, req.episodeId);
  assert.equal(done.toolCalls.length, 6);
  assert.equal(done.tickets, baseline.tickets + 1);
});
