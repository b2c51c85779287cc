import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { ChatClient } from '../../runtime/clients/chat-client.js';
import { DatabaseEpisodeRunner } from '../../runtime/episode/episode-runner.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import type { EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { scoreEpisode } from '../../runtime/episode/scoring.js';
import { TaskCatalog } from '../../runtime/episode/task-catalog.js';
import { LlmJudge } from '../../runtime/rubrics/judge.js';
import { ChatEndpointConfig } from '../../schemas/clients.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import type { Rubric, Task } from '../../schemas/task.js';
import { loadConfig } from '../../workers/config.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { uniqueName } from '../helpers/index.js';
import { FakeChatServer } from './fake-chat-server.js';

// The runner's reward is the scoring module's, on real episodes: the real DatabaseEpisodeRunner on the real retail
// pack (fresh PostgreSQL backend, MCP session, scripted user), with the task's rubrics set per case and the judge a
// FAKE chat model (a frontier LLM is out of reach here) behind the real LLM judge client. Each case checks the reward
// against the rule the docs state, and the stored record against a rescoring of itself: a runner that rebuilt the
// reward its own way (from stateMatches alone, say) fails here.
const config = loadConfig();
const taskSet = fromRoot('tasks', 'retail', 'retail-train-mini.manifest.json');
let runtime: EpisodeRuntime;
let runner: DatabaseEpisodeRunner;
const episodeIds: string[] = [];

type Answer = 'yes' | 'no' | 'unparsed';
let answer: Answer = 'yes';
const judgeModel = new FakeChatServer(() => ({
  content: { yes: 'It asked first.\nANSWER: YES', no: 'It did not.\nANSWER: NO', unparsed: 'Hard to say.' }[answer],
}));

/** The runner's catalog, with the rubrics of the case in play in place of the task's own. */
class RubricsOfTheCase extends TaskCatalog {
  rubrics: Rubric[] = [];
  override get(set: string, taskId: string): Task {
    return { ...super.get(set, taskId), rubrics: this.rubrics };
  }
}
const tasks = new RubricsOfTheCase();

before(async () => {
  await judgeModel.start();
  runtime = await createEpisodeRuntime(config);
  runner = new DatabaseEpisodeRunner({ ...runtime.runnerDeps, tasks });
});
after(async () => {
  if (episodeIds.length) await runtime.control.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [episodeIds]);
  await runtime.close();
  await judgeModel.stop();
});

const cancelTask = () => runtime.tasks.taskSet(taskSet).tasks.find((t) => t.tags[0] === 'cancel_order')!;
const judgeConfig = () => ({
  endpoint: ChatEndpointConfig.parse({ baseUrl: judgeModel.url, model: 'judge-model', maxRetries: 0 }),
  seed: 3,
});

// The oracle's last message is "Done: your request is handled." (runtime/policy/oracle-policy.ts).
const neverSaid: Rubric = { kind: 'must_not_reveal', description: 'internal code', text: 'X-99' };
const said: Rubric = { kind: 'must_not_reveal', description: 'the word handled', text: 'handled' };
const judged: Rubric = { kind: 'judge', description: 'asked first', question: 'Did the agent confirm before acting?' };

interface Case {
  name: string;
  state: 'matches' | 'differs';
  rubrics: Rubric[];
  judge: Answer | 'none';
}

/** The docs' rule (docs/ARCHITECTURE.md, an episode), written out on its own. */
function statedReward(c: Case): 0 | 1 {
  const deterministicPass = !c.rubrics.includes(said);
  const judgePass = !c.rubrics.includes(judged) || c.judge === 'yes' || c.judge === 'none';
  return c.state === 'matches' && deterministicPass && judgePass ? 1 : 0;
}

function requestOf(c: Case, episodeId = uniqueName('scoring')): EpisodeRequest {
  episodeIds.push(episodeId);
  return EpisodeRequest.parse({
    episodeId,
    taskId: cancelTask().id,
    taskSet,
    trial: 0,
    policy: c.state === 'matches' ? { kind: 'oracle' } : { kind: 'oracle', calls: [] },
    seed: 1,
    ...(c.judge === 'none' ? {} : { judge: judgeConfig() }),
  });
}

const cases: Case[] = [
  { name: 'state matches, rubrics pass, judge says yes', state: 'matches', rubrics: [neverSaid, judged], judge: 'yes' },
  { name: 'state matches, judge says no', state: 'matches', rubrics: [neverSaid, judged], judge: 'no' },
  { name: 'state matches, judge answer unreadable', state: 'matches', rubrics: [judged], judge: 'unparsed' },
  {
    name: 'state matches, no judge: judge rubric unjudged',
    state: 'matches',
    rubrics: [neverSaid, judged],
    judge: 'none',
  },
  { name: 'state matches, deterministic rubric fails', state: 'matches', rubrics: [said, judged], judge: 'yes' },
  { name: 'state differs, every rubric passes', state: 'differs', rubrics: [neverSaid, judged], judge: 'yes' },
];

test('the runner rewards each combination as the docs state, and its record agrees with a rescoring of itself', async () => {
  const rewards: number[] = [];
  for (const c of cases) {
    tasks.rubrics = c.rubrics;
    answer = c.judge === 'none' ? 'yes' : c.judge;
    const req = requestOf(c);
    const outcome = await runner.run(req);
    assert.equal(outcome.reward, statedReward(c), c.name);
    const record = await new EpisodeStore(runtime.control).load(req.episodeId);
    assert.ok(record, `${c.name}: stored`);
    assert.equal(record.outcome.reward, outcome.reward, c.name);
    assert.equal(record.grade.pass, outcome.reward === 1, `${c.name}: grade.pass is the reward`);
    assert.equal(record.grade.stateMatches, c.state === 'matches', c.name);
    assert.equal(record.unjudgedRubrics, c.judge === 'none' ? 1 : 0, c.name);
    const rescored = await scoreEpisode({
      check: record.grade,
      rubrics: c.rubrics,
      conversation: record.transcript,
      finishReason: record.outcome.finishReason,
      ...(c.judge === 'none' ? {} : { judge: new LlmJudge(new ChatClient(judgeConfig().endpoint, 'judge'), 3) }),
    });
    assert.equal(rescored.reward, outcome.reward, `${c.name}: the stored record scores the same`);
    assert.deepEqual(rescored.grade.rubrics, record.grade.rubrics, c.name);
    rewards.push(outcome.reward);
  }
  assert.deepEqual(rewards, [1, 0, 0, 1, 0, 0]);
});

test('an unreachable judge is an infrastructure error, never a reward; the retried attempt is scored', async () => {
  const c: Case = { name: 'judge down', state: 'matches', rubrics: [judged], judge: 'yes' };
  tasks.rubrics = c.rubrics;
  answer = 'yes';
  const req = requestOf(c);
  judgeModel.failNext(503);
  await assert.rejects(runner.run(req, { attempt: 1 }), InfrastructureError);
  assert.equal(
    await new EpisodeStore(runtime.control).load(req.episodeId),
    undefined,
    'no record of the failed attempt',
  );
  const outcome = await runner.run(req, { attempt: 2 });
  assert.equal(outcome.reward, 1);
});
