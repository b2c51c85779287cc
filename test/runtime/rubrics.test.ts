import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ChatClient } from '../../runtime/clients/chat-client.js';
import { adapterPricingOf, episodeCost } from '../../runtime/cost/cost-model.js';
import { adapterPrefixOf } from '../../core/policy-versions.js';
import { PolicyRef } from '../../schemas/episode.js';
import { usageCost } from '../../stats/cost.js';
import { evaluateRubrics } from '../../runtime/rubrics/evaluate.js';
import { LlmJudge, parseJudgeAnswer } from '../../runtime/rubrics/judge.js';
import { ChatEndpointConfig } from '../../schemas/clients.js';
import type { Conversation } from '../../schemas/conversation.js';
import { RubricVerdict } from '../../schemas/runtime.js';
import type { Rubric } from '../../schemas/task.js';
import { FakeChatServer } from './fake-chat-server.js';

const conversation: Conversation = {
  system: 'policy',
  tools: [],
  turns: [
    { role: 'user', content: 'Cancel my order please.' },
    {
      role: 'assistant',
      reasoning: 'The internal code is X-99.',
      content: 'Checking your order.',
      toolCalls: [{ tool: 'find_order', arguments: { order_id: 'ORD-1' } }],
    },
    { role: 'tool', content: '{"status": "open"}' },
    { role: 'assistant', content: 'Your order   ORD-1 is now CANCELLED. Refund: 12.00 EUR.', toolCalls: [] },
  ],
};

test('judge parse rule: the last "ANSWER: YES|NO" line decides and the text above it is the motivation', () => {
  assert.deepEqual(parseJudgeAnswer('The agent asked first.\nANSWER: YES'), {
    answer: 'yes',
    motivation: 'The agent asked first.',
  });
  assert.deepEqual(parseJudgeAnswer('Considering ANSWER: YES?\nNo, it did not.\n**Answer: no**\n'), {
    answer: 'no',
    motivation: 'Considering ANSWER: YES?\nNo, it did not.',
  });
  assert.deepEqual(parseJudgeAnswer('ANSWER: NO\nOn reflection:\nanswer: yes.'), {
    answer: 'yes',
    motivation: 'ANSWER: NO\nOn reflection:',
  });
  assert.deepEqual(parseJudgeAnswer('Yes, clearly.'), { answer: 'unparsed', motivation: 'Yes, clearly.' });
  assert.equal(parseJudgeAnswer('ANSWER: YESNO').answer, 'unparsed');
});

test('must_not_reveal looks at every visible agent message, must_mention at the final one; reasoning is not visible', async () => {
  const rubrics: Rubric[] = [
    { kind: 'must_not_reveal', description: 'internal code', text: 'X-99' },
    { kind: 'must_mention', description: 'states cancellation', text: 'order ORD-1 is now cancelled' },
    { kind: 'must_mention', description: 'early text only', text: 'checking your order' },
    { kind: 'must_not_reveal', description: 'refund', text: '12.00 eur' },
  ];
  const { verdicts } = await evaluateRubrics(rubrics, conversation);
  assert.deepEqual(
    verdicts.map((v) => v.passed),
    [true, true, false, false],
  );
  assert.equal(verdicts[3]!.detail, 'agent message 2 reveals "12.00 eur"');
  verdicts.forEach((v) => RubricVerdict.parse(v));
});

const judgeServer = new FakeChatServer((body) => {
  const question = String(body.messages.at(-1)!.content);
  if (question.includes('cancel')) return { content: 'The agent cancelled the order and said so.\nANSWER: YES' };
  if (question.includes('apolog')) return { content: 'There is no apology.\nANSWER: NO' };
  return { content: 'I am not sure.' };
});
before(() => judgeServer.start());
after(() => judgeServer.stop());

test('the LLM judge asks at temperature 0 with the seed, stores its motivation, and fails unparseable answers', async () => {
  const judge = new LlmJudge(
    new ChatClient(
      ChatEndpointConfig.parse({ baseUrl: judgeServer.url, model: 'judge-model', temperature: 0.9 }),
      'judge',
    ),
    1234,
  );
  const rubrics: Rubric[] = [
    { kind: 'judge', description: 'cancelled', question: 'Did the agent cancel the order?' },
    { kind: 'judge', description: 'apology', question: 'Did the agent apologise?' },
    { kind: 'judge', description: 'vague', question: 'Was the tone right?' },
  ];
  const outcome = await evaluateRubrics(rubrics, conversation, judge);
  assert.deepEqual(
    outcome.verdicts.map((v) => [v.passed, v.answer, v.motivation]),
    [
      [true, 'yes', 'The agent cancelled the order and said so.'],
      [false, 'no', 'There is no apology.'],
      [false, 'unparsed', 'I am not sure.'],
    ],
  );
  const sent = judgeServer.requests.at(-1)!;
  assert.equal(sent.temperature, 0);
  assert.equal(sent.seed, 1234);
  const transcript = String(sent.messages[1]!.content);
  assert.ok(transcript.includes('Agent called find_order {"order_id": "ORD-1"}'));
  assert.ok(!transcript.includes('X-99'), 'the judge never reads the reasoning');
  assert.equal(outcome.judgeModel, 'judge-model');
  assert.equal(outcome.judgeUsage.outputTokens, 21);
  const unjudged = await evaluateRubrics(rubrics, conversation);
  assert.deepEqual(unjudged.verdicts, [], 'without a judge no judge rubric gets a verdict');
  assert.deepEqual(unjudged.unjudged, [0, 1, 2]);
});

test('cost: uncached input, cached input and output at their prices per million; unpriced models are listed', () => {
  const price = { input: 2, cachedInput: 0.5, output: 8 };
  assert.equal(
    usageCost({ inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 250_000 }, price),
    0.6 * 2 + 0.4 * 0.5 + 0.25 * 8,
  );
  const cost = episodeCost(
    [
      { model: 'gpt-x', usage: { inputTokens: 2000, cachedInputTokens: 0, outputTokens: 100 } },
      { model: 'gpt-x', usage: { inputTokens: 1000, cachedInputTokens: 1000, outputTokens: 0 } },
      { model: 'local-policy', usage: { inputTokens: 50, cachedInputTokens: 0, outputTokens: 5 } },
      { model: 'idle', usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 } },
    ],
    { 'gpt-x': price },
  );
  assert.ok(Math.abs(cost.totalUsd - (2000 * 2 + 1000 * 0.5 + 100 * 8) / 1e6) < 1e-12);
  assert.deepEqual(Object.keys(cost.byModel), ['gpt-x']);
  assert.deepEqual(cost.unpriced, ['local-policy']);
});

test("cost: a LoRA campaign's adapters are priced as the base model they run on, another campaign's are not", () => {
  const price = { input: 1, cachedInput: 0.5, output: 4 };
  const usage = { inputTokens: 3000, cachedInputTokens: 1000, outputTokens: 200 };
  const served = (lora: boolean) =>
    PolicyRef.parse({
      kind: 'served',
      client: { baseUrl: 'http://127.0.0.1:1', model: 'policy' },
      version: '3',
      ...(lora ? { adapterPrefix: adapterPrefixOf('camp') } : {}),
    });
  const adapters = adapterPricingOf(served(true));
  assert.deepEqual(adapters, { prefix: 'camp-v', baseModel: 'policy' });
  assert.equal(adapterPricingOf(served(false)), undefined, 'a full-weights campaign names its model directly');
  assert.equal(adapterPricingOf(PolicyRef.parse({ kind: 'oracle' })), undefined);

  const expected = (2000 * 1 + 1000 * 0.5 + 200 * 4) / 1e6;
  for (const model of ['policy', 'camp-v3', 'camp-v12']) {
    const cost = episodeCost([{ model, usage }], { policy: price }, adapters);
    assert.ok(Math.abs(cost.totalUsd - expected) < 1e-15, `${model}: ${cost.totalUsd}`);
    assert.deepEqual(cost.unpriced, []);
  }
  for (const model of ['other-v3', 'camp-v0', 'camp-vx']) {
    const cost = episodeCost([{ model, usage }], { policy: price }, adapters);
    assert.deepEqual([cost.totalUsd, cost.unpriced], [0, [model]], `${model} is not this campaign's adapter`);
  }
  assert.deepEqual(episodeCost([{ model: 'camp-v3', usage }], { policy: price }).unpriced, ['camp-v3']);
});
