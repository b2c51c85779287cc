import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Episode } from '../../environment/backend.js';
import type { ToolContext } from '../../environment/domain.js';
import { loadConfig } from '../../workers/config.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { uniqueName } from '../helpers/index.js';
import { RESUME_TASK_ID, RESUME_TASK_SET } from '../../testkit/pipeline/oracle-episodes.js';
import { captureBeforeTeardown, ensureFinalStatesTable } from './final-states.js';
import { checkEffects, storedEpisodes, type EpisodeActivity } from './invariants.js';

// The chaos suite's "tool effects applied twice" check, now that its fleet resets and reuses episode databases: two
// oracle episodes run through the real runner with the default provisioning (reset and reuse) and the fleet's capture
// of each final state before teardown; in one of them a tool effect is applied a second time without its record, as a
// buggy resume would. The check must find exactly that one, from the captures alone: both databases are gone.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const config = loadConfig();
let runtime: EpisodeRuntime;
const campaignId = uniqueName('effects-check');

before(async () => {
  runtime = await createEpisodeRuntime(config);
  await ensureFinalStatesTable(runtime.control);
});

after(async () => {
  await runtime.control.query('DELETE FROM episodes WHERE campaign_id = $1', [campaignId]);
  await runtime.control.query('DROP TABLE IF EXISTS chaos_final_states');
  await runtime.close();
});

/** Run the handler of one of the task's golden calls again, in its own transaction, with no record of it. */
async function applyAgain(episode: Episode, tool: string): Promise<void> {
  const call = episode.task.golden.find((c) => c.tool === tool)!;
  const definition = episode.domain.tools.find((t) => t.name === tool)!;
  await runtime.backend.transaction(episode, async (db) => {
    const ctx: ToolContext = {
      db,
      now: new Date(episode.clock),
      async nextId(sequence) {
        const res = await db.query<{ prefix: string; value: string }>(
          'SELECT prefix, value FROM public._finalstate_next_id($1, $2)',
          [episode.leaseToken, sequence],
        );
        return `${res.rows[0]!.prefix}${res.rows[0]!.value}`;
      },
    };
    await definition.handler(ctx, call.arguments);
  });
}

test('the effects check finds a tool effect applied twice from the captured final states of reset databases', async () => {
  const requests = ['clean', 'doubled'].map((label) =>
    EpisodeRequest.parse({
      episodeId: `${campaignId}/${label}`,
      campaignId,
      taskId: RESUME_TASK_ID,
      taskSet: RESUME_TASK_SET,
      trial: 0,
      policy: { kind: 'oracle' },
      seed: 1,
    }),
  );
  const doubled = requests[1]!.episodeId;
  captureBeforeTeardown(runtime.backend, runtime.control);
  const teardown = runtime.backend.teardown.bind(runtime.backend);
  runtime.backend.teardown = async (episode, options) => {
    if (episode.episodeId === doubled) await applyAgain(episode, 'create_ticket');
    return teardown(episode, options);
  };
  const activities: EpisodeActivity[] = [];
  for (const request of requests) {
    const outcome = await runtime.runner.run(request);
    assert.equal(outcome.reward, 1);
    const now = Date.now();
    activities.push({
      child: campaignId,
      request,
      outcome,
      failed: false,
      attempts: 1,
      scheduledAt: now,
      closedAt: now,
    });
  }
  await runtime.backend.flushDrops();
  for (const request of requests) {
    const kept = await runtime.control.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      runtime.backend.names(request.episodeId).database,
    ]);
    assert.equal(kept.rowCount, 0, 'the episode database was reset for reuse, not kept');
  }
  const recordOf = new Map((await storedEpisodes(runtime.control, [campaignId])).map((r) => [r.episode_id, r]));
  const effects = await checkEffects(config, runtime.control, activities, recordOf);
  assert.equal(effects.checked, 2);
  assert.ok(effects.writes > 0);
  assert.deepEqual(
    effects.problems.map((p) => p.slice(0, p.indexOf(':'))),
    [doubled],
    effects.problems.join('\n'),
  );
  assert.match(effects.problems[0]!, /final state differs from a replay of its 6 recorded calls/);
});
