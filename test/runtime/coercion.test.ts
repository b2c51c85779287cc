import assert from 'node:assert/strict';
import { test } from 'node:test';
import { typeArguments } from '../../runtime/interpreter/index.js';
import { tools } from './fixtures.js';

const refundSchema = tools[1]!.inputSchema;
const refund = (extra: Record<string, unknown>) => typeArguments({ order_id: 'ORD-7', amount_cents: 100, ...extra }, refundSchema);

test('values that already have the declared type are kept unchanged, with no coercion recorded', () => {
  const typed = refund({ rate: 0.5, notify: false, reason: 'late', note: null, lines: [{ sku: 'A', qty: 2 }] });
  assert.deepEqual(typed.problems, []);
  assert.deepEqual(typed.coercions, []);
  assert.deepEqual(typed.arguments, { order_id: 'ORD-7', amount_cents: 100, rate: 0.5, notify: false, reason: 'late', note: null, lines: [{ sku: 'A', qty: 2 }] });
});

test('documented coercions: numeric text to integer/number, "true"/"false" to boolean, numbers and booleans to string, JSON text to arrays', () => {
  const typed = typeArguments(
    { order_id: 7, amount_cents: ' 12 ', rate: '-1.5e2', notify: 'TRUE', note: false, lines: '[{"sku": "A", "qty": "3"}]' },
    refundSchema,
  );
  assert.deepEqual(typed.problems, []);
  assert.deepEqual(typed.arguments, { order_id: '7', amount_cents: 12, rate: -150, notify: true, note: 'false', lines: [{ sku: 'A', qty: 3 }] });
  assert.deepEqual(
    typed.coercions.map((c) => `${c.path}:${c.rule}`),
    ['order_id:number->string', 'amount_cents:string->integer', 'rate:string->number', 'notify:string->boolean', 'note:boolean->string', 'lines:json-text->array', 'lines[0].qty:string->integer'],
  );
});

test('type lists prefer an exact match before coercing: null stays null for ["string","null"]', () => {
  assert.deepEqual(refund({ note: null }).arguments.note, null);
  assert.deepEqual(refund({ note: 5 }).arguments.note, '5');
});

test('no silent rounding, guessing or dropping: each of these is a problem naming the argument', () => {
  const problems = (extra: Record<string, unknown>) => refund(extra).problems.map((p) => `${p.kind} ${p.message}`);
  assert.deepEqual(problems({ amount_cents: 12.5 }), ['invalid_argument argument "amount_cents" must be an integer, got number 12.5']);
  assert.deepEqual(problems({ amount_cents: '12.0' }), ['invalid_argument argument "amount_cents" must be an integer, got string "12.0"']);
  assert.deepEqual(problems({ amount_cents: '99999999999999999999' }), ['invalid_argument argument "amount_cents" must be an integer, got string "99999999999999999999"']);
  assert.deepEqual(problems({ notify: 1 }), ['invalid_argument argument "notify" must be a boolean (true or false), got number 1']);
  assert.deepEqual(problems({ notify: 'yes' }), ['invalid_argument argument "notify" must be a boolean (true or false), got string "yes"']);
  assert.deepEqual(problems({ order_id: { id: 7 } }), ['invalid_argument argument "order_id" must be a string, got an object']);
  assert.deepEqual(problems({ reason: 'Damaged' }), ['invalid_argument argument "reason" must be one of "damaged", "late", "other", got string "Damaged"']);
  assert.deepEqual(problems({ note: [] }), ['invalid_argument argument "note" must be one of the types string | null, got an array']);
  assert.deepEqual(problems({ lines: [{ sku: 'A' }] }), ['missing_argument missing required argument "lines[0].qty"']);
  assert.deepEqual(problems({ lines: 'A x2' }), ['invalid_argument argument "lines" must be an array, got string "A x2"']);
  assert.deepEqual(problems({ rate: 'NaN' }), ['invalid_argument argument "rate" must be a number, got string "NaN"']);
});

test('anyOf picks the first exact branch, then the first branch that matches after coercion', () => {
  const schema = { type: 'object', properties: { when: { anyOf: [{ type: 'integer' }, { type: 'string', enum: ['now', 'later'] }] } } };
  assert.equal(typeArguments({ when: 'now' }, schema).arguments.when, 'now');
  assert.equal(typeArguments({ when: '5' }, schema).arguments.when, 5);
  assert.equal(typeArguments({ when: 3 }, schema).arguments.when, 3);
  assert.match(typeArguments({ when: 'soon' }, schema).problems[0]!.message, /argument "when" must be one of: integer \| string/);
});

test('extra arguments are rejected unless the schema explicitly allows them', () => {
  assert.equal(typeArguments({ x: 1 }, { type: 'object' }).problems[0]?.kind, 'extra_argument');
  assert.deepEqual(typeArguments({ x: 1 }, { type: 'object', additionalProperties: true }).arguments, { x: 1 });
  const record = typeArguments({ a: '1', b: 2 }, { type: 'object', additionalProperties: { type: 'integer' } });
  assert.deepEqual(record.arguments, { a: 1, b: 2 });
});
