import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScriptedUserSimulator } from '../../runtime/clients/scripted-user.js';

const user = new ScriptedUserSimulator({
  query: 'Please cancel my order.',
  userFacts: {
    order_id: 'ORD-1001',
    customer_email: 'ann@example.com',
    phone_number: '+31 6 1234 5678',
    zipCode: '1017 AB',
  },
  userDecisions: { confirm_cancellation: true, accept_store_credit: false },
});
const answer = (text: string) =>
  user.reply([
    { from: 'user', text: 'Please cancel my order.' },
    { from: 'agent', text },
  ]);

test('the opening message is the task query', () => {
  assert.deepEqual(user.opening(), {
    text: 'Please cancel my order.',
    done: false,
    usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
    model: null,
  });
});

test('answers a question asking for a fact by its key or a synonym, with that fact only', async () => {
  assert.equal((await answer('Could you give me your order number?')).text, 'My order id is ORD-1001.');
  assert.equal((await answer('What is the order ID?')).text, 'My order id is ORD-1001.');
  assert.equal((await answer('Which e-mail address is on the account?')).text, 'My customer email is ann@example.com.');
  assert.equal(
    (await answer('What is your phone number?')).text,
    'My phone number is +31 6 1234 5678.',
    '"number" answers the phone, not the order id',
  );
  assert.equal((await answer('And your postcode?')).text, 'My zip code is 1017 AB.');
  assert.equal(
    (await answer('Please share your order id and your email.')).text,
    'My order id is ORD-1001. My customer email is ann@example.com.',
  );
});

test('answers yes/no questions about its decisions, and declines offers it has no decision for', async () => {
  assert.deepEqual(await answer('Shall I cancel order ORD-1001 now?').then((r) => [r.text, r.done]), [
    'Yes, please go ahead.',
    false,
  ]);
  assert.equal((await answer('Would you accept store credit instead?')).text, "No, I don't want that.");
  assert.equal((await answer('Would you like to subscribe to our newsletter?')).text, 'No, thank you.');
});

test('declines questions it has no fact for, and never invents one', async () => {
  const reply = await answer('What is your date of birth?');
  assert.equal(reply.text, "Sorry, I don't know that.");
  assert.equal(reply.done, false);
});

test('ends the conversation when the agent reports it is done', async () => {
  assert.deepEqual(await answer('Your order ORD-1001 has been cancelled.').then((r) => [r.text, r.done]), [
    "Thank you, that's all.",
    true,
  ]);
  assert.equal((await answer('It is cancelled. Is there anything else I can help you with?')).done, true);
});

test('is deterministic: the same dialogue always gets the same reply', async () => {
  const replies = await Promise.all(
    [1, 2, 3].map(() => answer('Can you confirm the cancellation and give me your email?')),
  );
  assert.ok(replies.every((r) => r.text === replies[0]!.text));
  assert.equal(replies[0]!.text, 'My customer email is ann@example.com. Yes, please go ahead.');
});

test('statements are not questions: a report that mentions a fact key still ends the conversation', async () => {
  assert.deepEqual(
    await answer('Order ORD-1001 is cancelled; a confirmation went to your email.').then((r) => [r.text, r.done]),
    ["Thank you, that's all.", true],
  );
  assert.equal((await answer('Which order is it?')).text, 'My order id is ORD-1001.');
});
