import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { ChatClient } from '../../runtime/clients/chat-client.js';
import { scoreEpisode } from '../../runtime/episode/scoring.js';
import { LlmJudge } from '../../runtime/rubrics/judge.js';
import { ChatEndpointConfig } from '../../schemas/clients.js';
import type { Conversation } from '../../schemas/conversation.js';
import type { FinishReason } from '../../schemas/episode.js';
import { GradeReport, type StateCheck } from '../../schemas/grading.js';
import type { Rubric } from '../../schemas/task.js';
import { FakeChatServer } from './fake-chat-server.js';

// The reward as the docs state it (docs/ARCHITECTURE.md, an episode; schemas/grading.ts): 1 when the final state
// matches the expected state, every SQL assertion holds and every evaluated rubric passed; judge rubrics count only
// when the episode has a judge; an answer without "ANSWER: YES|NO" fails its rubric; an unreachable judge is an
// infrastructure error, never a reward; the finish reason never enters. Every combination, through the real LLM judge
// client, against a FAKE judge model (a frontier LLM is out of reach here).

const STATES = {
  matches: { stateMatches: true, diff: [], assertionHolds: true },
  differs: {
    stateMatches: false,
    diff: [
      {
        kind: 'changed_value',
        table: 'orders',
        key: { order_id: 'O-1' },
        column: 'status',
        expected: 'x',
        actual: 'y',
      },
    ],
    assertionHolds: true,
  },
  'assertion fails': { stateMatches: true, diff: [], assertionHolds: false },
} as const;
type State = keyof typeof STATES;
type Deterministic = 'passes' | 'fails';
type Judge = 'yes' | 'no' | 'unparsed' | 'unreachable' | 'none';

function checkOf(state: State): StateCheck {
  const s = STATES[state];
  return {
    taskId: 'scoring-task',
    taskSha256: 'a'.repeat(64),
    stateMatches: s.stateMatches,
    expectedStateSha256: 'b'.repeat(64),
    actualStateSha256: s.stateMatches ? 'b'.repeat(64) : 'c'.repeat(64),
    diff: [...s.diff],
    assertions: [{ description: 'the refund is booked', pass: s.assertionHolds }],
  };
}

const rubrics: Rubric[] = [
  { kind: 'must_not_reveal', description: 'internal code', text: 'X-99' },
  { kind: 'judge', description: 'asked first', question: 'Did the agent confirm before acting?' },
];

function conversationFor(deterministic: Deterministic): Conversation {
  const final = deterministic === 'passes' ? 'Your order is cancelled.' : 'Cancelled; internal code X-99.';
  return {
    system: 'policy',
    tools: [],
    turns: [
      { role: 'user', content: 'Cancel my order please.' },
      { role: 'assistant', content: final, toolCalls: [] },
    ],
  };
}

let answer: Judge = 'yes';
const judgeModel = new FakeChatServer(() => ({
  content:
    answer === 'yes' ? 'It confirmed.\nANSWER: YES' : answer === 'no' ? 'It did not.\nANSWER: NO' : 'Hard to say.',
}));
before(() => judgeModel.start());
after(() => judgeModel.stop());

function judgeFor(kind: Judge): LlmJudge | undefined {
  if (kind === 'none') return undefined;
  answer = kind;
  if (kind === 'unreachable') judgeModel.failNext(503);
  const endpoint = ChatEndpointConfig.parse({ baseUrl: judgeModel.url, model: 'judge-model', maxRetries: 0 });
  return new LlmJudge(new ChatClient(endpoint, 'judge'), 7);
}

/** The docs' rule, written out on its own: the test fails on a scorer (or runner) that decides differently. */
function statedReward(state: State, deterministic: Deterministic, judge: Judge): 0 | 1 {
  const stateRight = state === 'matches';
  const rubricsPass = deterministic === 'passes' && (judge === 'yes' || judge === 'none');
  return stateRight && rubricsPass ? 1 : 0;
}

test('every combination of final state × deterministic rubric × judge verdict gives the reward the docs state', async () => {
  const rows: string[] = [];
  for (const state of Object.keys(STATES) as State[])
    for (const deterministic of ['passes', 'fails'] as const)
      for (const judge of ['yes', 'no', 'unparsed', 'unreachable', 'none'] as const)
        for (const finishReason of ['agent_done', 'max_turns'] as FinishReason[]) {
          const label = `${state} · rubric ${deterministic} · judge ${judge} · ${finishReason}`;
          const judgeClient = judgeFor(judge);
          const scoring = scoreEpisode({
            check: checkOf(state),
            rubrics,
            conversation: conversationFor(deterministic),
            finishReason,
            ...(judgeClient ? { judge: judgeClient } : {}),
          });
          if (judge === 'unreachable') {
            await assert.rejects(scoring, InfrastructureError, label);
            rows.push(`${label} → infrastructure error`);
            continue;
          }
          const score = await scoring;
          GradeReport.parse(score.grade);
          assert.equal(score.reward, statedReward(state, deterministic, judge), label);
          assert.equal(score.grade.pass, score.reward === 1, `${label}: grade.pass is the reward`);
          assert.equal(score.finishReason, finishReason, label);
          assert.deepEqual(
            score.grade.rubrics.map((r) => r.status),
            [
              deterministic === 'passes' ? 'passed' : 'failed',
              judge === 'none' ? 'needs_judge' : judge === 'yes' ? 'passed' : 'failed',
            ],
            label,
          );
          assert.equal(score.unjudgedRubrics, judge === 'none' ? 1 : 0, label);
          assert.equal(score.grade.pendingJudgeRubrics, score.unjudgedRubrics, label);
          assert.equal(score.failedAssertions, state === 'assertion fails' ? 1 : 0, label);
          assert.equal(
            score.failedRubrics,
            (deterministic === 'fails' ? 1 : 0) + (judge === 'no' || judge === 'unparsed' ? 1 : 0),
            label,
          );
          rows.push(`${label} → reward ${score.reward}`);
        }
  assert.equal(rows.length, 60);
  assert.equal(rows.filter((r) => r.endsWith('reward 1')).length, 4, rows.join('\n'));
});

test('verdicts carry the index of the rubric in the task, also when an unjudged rubric comes first', async () => {
  const judgeFirst: Rubric[] = [rubrics[1]!, rubrics[0]!];
  const score = await scoreEpisode({
    check: checkOf('matches'),
    rubrics: judgeFirst,
    conversation: conversationFor('fails'),
    finishReason: 'agent_done',
  });
  assert.deepEqual(
    score.rubricVerdicts.map((v) => [v.rubric, v.kind, v.passed]),
    [[1, 'must_not_reveal', false]],
  );
  assert.deepEqual(
    score.grade.rubrics.map((r) => r.status),
    ['needs_judge', 'failed'],
  );
  assert.equal(score.reward, 0);
});

test("the judge's tokens and model come back with the score, for the episode's cost", async () => {
  const score = await scoreEpisode({
    check: checkOf('matches'),
    rubrics,
    conversation: conversationFor('passes'),
    finishReason: 'agent_done',
    judge: judgeFor('yes')!,
  });
  assert.equal(score.reward, 1);
  assert.equal(score.judgeModel, 'judge-model');
  assert.ok(score.judgeUsage.inputTokens > 0 && score.judgeUsage.outputTokens > 0);
});
