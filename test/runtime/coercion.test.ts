import assert from 'node:assert/strict';
import { test } from 'node:test';
import { typeArguments } from '../../runtime/interpreter/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { domains } from '../../domains/index.js';
import { tools } from './fixtures.js';

const refundSchema = tools[1]!.inputSchema;
const refund = (extra: Record<string, unknown>) =>
  typeArguments({ order_id: 'ORD-7', amount_cents: 100, ...extra }, refundSchema);

test('values that already have the declared type are kept unchanged, with no coercion recorded', () => {
  const typed = refund({ rate: 0.5, notify: false, reason: 'late', note: null, lines: [{ sku: 'A', qty: 2 }] });
  assert.deepEqual(typed.problems, []);
  assert.deepEqual(typed.coercions, []);
  assert.deepEqual(typed.arguments, {
    order_id: 'ORD-7',
    amount_cents: 100,
    rate: 0.5,
    notify: false,
    reason: 'late',
    note: null,
    lines: [{ sku: 'A', qty: 2 }],
  });
});

test('documented coercions: numeric text to integer/number, "true"/"false" to boolean, numbers and booleans to string, JSON text to arrays', () => {
  const typed = typeArguments(
    {
      order_id: 7,
      amount_cents: ' 12 ',
      rate: '-1.5e2',
      notify: 'TRUE',
      note: false,
      lines: '[{"sku": "A", "qty": "3"}]',
    },
    refundSchema,
  );
  assert.deepEqual(typed.problems, []);
  assert.deepEqual(typed.arguments, {
    order_id: '7',
    amount_cents: 12,
    rate: -150,
    notify: true,
    note: 'false',
    lines: [{ sku: 'A', qty: 3 }],
  });
  assert.deepEqual(
    typed.coercions.map((c) => `${c.path}:${c.rule}`),
    [
      'order_id:number->string',
      'amount_cents:string->integer',
      'rate:string->number',
      'notify:string->boolean',
      'note:boolean->string',
      'lines:json-text->array',
      'lines[0].qty:string->integer',
    ],
  );
});

test('type lists prefer an exact match before coercing: null stays null for ["string","null"]', () => {
  assert.deepEqual(refund({ note: null }).arguments.note, null);
  assert.deepEqual(refund({ note: 5 }).arguments.note, '5');
});

test('no silent rounding, guessing or dropping: each of these is a problem naming the argument', () => {
  const problems = (extra: Record<string, unknown>) => refund(extra).problems.map((p) => `${p.kind} ${p.message}`);
  assert.deepEqual(problems({ amount_cents: 12.5 }), [
    'invalid_argument argument "amount_cents" must be an integer, got number 12.5',
  ]);
  assert.deepEqual(problems({ amount_cents: '12.0' }), [
    'invalid_argument argument "amount_cents" must be an integer, got string "12.0"',
  ]);
  assert.deepEqual(problems({ amount_cents: '99999999999999999999' }), [
    'invalid_argument argument "amount_cents" must be an integer, got string "99999999999999999999"',
  ]);
  assert.deepEqual(problems({ notify: 1 }), [
    'invalid_argument argument "notify" must be a boolean (true or false), got number 1',
  ]);
  assert.deepEqual(problems({ notify: 'yes' }), [
    'invalid_argument argument "notify" must be a boolean (true or false), got string "yes"',
  ]);
  assert.deepEqual(problems({ order_id: { id: 7 } }), [
    'invalid_argument argument "order_id" must be a string, got an object',
  ]);
  assert.deepEqual(problems({ reason: 'Damaged' }), [
    'invalid_argument argument "reason" must be one of "damaged", "late", "other", got string "Damaged"',
  ]);
  assert.deepEqual(problems({ note: [] }), [
    'invalid_argument argument "note" must be one of the types string | null, got an array',
  ]);
  assert.deepEqual(problems({ lines: [{ sku: 'A' }] }), ['missing_argument missing required argument "lines[0].qty"']);
  assert.deepEqual(problems({ lines: 'A x2' }), [
    'invalid_argument argument "lines" must be an array, got string "A x2"',
  ]);
  assert.deepEqual(problems({ rate: 'NaN' }), ['invalid_argument argument "rate" must be a number, got string "NaN"']);
});

test('anyOf picks the first exact branch, then the first branch that matches after coercion', () => {
  const schema = {
    type: 'object',
    properties: { when: { anyOf: [{ type: 'integer' }, { type: 'string', enum: ['now', 'later'] }] } },
  };
  assert.equal(typeArguments({ when: 'now' }, schema).arguments.when, 'now');
  assert.equal(typeArguments({ when: '5' }, schema).arguments.when, 5);
  assert.equal(typeArguments({ when: 3 }, schema).arguments.when, 3);
  assert.match(
    typeArguments({ when: 'soon' }, schema).problems[0]!.message,
    /argument "when" must be one of: integer \| string/,
  );
});

test('extra arguments are rejected unless the schema explicitly allows them', () => {
  assert.equal(typeArguments({ x: 1 }, { type: 'object' }).problems[0]?.kind, 'extra_argument');
  assert.deepEqual(typeArguments({ x: 1 }, { type: 'object', additionalProperties: true }).arguments, { x: 1 });
  const record = typeArguments({ a: '1', b: 2 }, { type: 'object', additionalProperties: { type: 'integer' } });
  assert.deepEqual(record.arguments, { a: 1, b: 2 });
});

test('keys named like Object.prototype members are own-property checked: "constructor" and "__proto__" are unexpected arguments', () => {
  const parsed = JSON.parse(
    '{"order_id": "ORD-7", "amount_cents": 100, "constructor": "x", "__proto__": {"admin": true}}',
  ) as Record<string, unknown>;
  assert.deepEqual(
    typeArguments(parsed, refundSchema).problems.map((p) => `${p.kind} ${p.path}`),
    ['extra_argument constructor', 'extra_argument __proto__'],
  );
  const required = typeArguments(
    {},
    { type: 'object', properties: { constructor: { type: 'string' } }, required: ['constructor'] },
  );
  assert.deepEqual(
    required.problems.map((p) => p.kind),
    ['missing_argument'],
    'a required "constructor" is not satisfied by the prototype',
  );
  const declared = typeArguments(JSON.parse('{"__proto__": "kept"}') as Record<string, unknown>, {
    type: 'object',
    properties: { ['__proto__']: { type: 'string' } },
  });
  assert.deepEqual(declared.problems, []);
  assert.deepEqual(
    Object.getOwnPropertyDescriptor(declared.arguments, '__proto__')?.value,
    'kept',
    'a declared "__proto__" stays an own property',
  );
  assert.equal(Object.getPrototypeOf(declared.arguments), Object.prototype);
});

/** The shipped packs' tools, registered on a bare MCP server (the real SDK) whose handlers do nothing. */
async function sdkOfShippedTools() {
  const server = new McpServer({ name: 'constraints', version: '1' });
  const shared = new Set<string>(); // common tools (tickets, contact) are in both packs
  for (const tool of domains.flatMap((d) => d.tools)) {
    if (shared.has(tool.name)) continue;
    shared.add(tool.name);
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, async () => ({
      content: [{ type: 'text', text: 'ok' }],
    }));
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'constraints-test', version: '1' });
  await client.connect(clientSide);
  const schemas = new Map(
    (await client.listTools()).tools.map((t) => [t.name, t.inputSchema as Record<string, unknown>]),
  );
  return { client, schemas };
}

test('the interpreter refuses what the MCP SDK refuses: minLength, format (e-mail), pattern, positive (exclusiveMinimum), minimum', async () => {
  const { client, schemas } = await sdkOfShippedTools();
  try {
    const cases: Array<[string, Record<string, unknown>, RegExp | null]> = [
      [
        'update_shipping_address',
        { order_id: 'ORD-1', address: 'abc' },
        /"address" must be at least 5 characters long, got 3/,
      ],
      ['update_shipping_address', { order_id: 'ORD-1', address: '1 Main St' }, null],
      [
        'update_customer_contact',
        { customer_id: 'CUS-1', email: 'not-an-email' },
        /"email" must be a valid e-mail address/,
      ],
      ['update_customer_contact', { customer_id: 'CUS-1', email: 'a@b' }, /"email" must be a valid e-mail address/],
      ['update_customer_contact', { customer_id: 'CUS-1', email: 'ana.ruiz@example.com' }, null],
      [
        'create_refund',
        { order_id: 'ORD-1', amount: 0, reason: 'late_delivery_compensation' },
        /"amount" must be greater than 0, got 0/,
      ],
      [
        'create_refund',
        { order_id: 'ORD-1', amount: -5, reason: 'late_delivery_compensation' },
        /"amount" must be greater than 0/,
      ],
      ['create_refund', { order_id: 'ORD-1', amount: 12.5, reason: 'late_delivery_compensation' }, null],
      ['change_seat', { booking_id: 'B-1', segment_id: 'S-1', seat: '99Z' }, /"seat" must match the pattern/],
      ['change_seat', { booking_id: 'B-1', segment_id: 'S-1', seat: '14C' }, null],
      [
        'verify_traveler_identity',
        { traveler_id: 'T-1', date_of_birth: '1990-1-1' },
        /"date_of_birth" must match the pattern/,
      ],
      [
        'create_return',
        { order_id: 'ORD-1', item_id: 'I-1', reason: 'defective', item_opened: true, restocking_fee: -1 },
        /"restocking_fee" must be at least 0, got -1/,
      ],
    ];
    for (const [tool, args, refusal] of cases) {
      const schema = schemas.get(tool);
      assert.ok(schema, `tool ${tool} is shipped`);
      const typed = typeArguments(args, schema);
      const sdk = await client.callTool({ name: tool, arguments: args });
      const where = `${tool} ${JSON.stringify(args)}`;
      if (refusal === null) {
        assert.deepEqual(typed.problems, [], where);
        assert.equal(sdk.isError, undefined, `${where}: the SDK accepts it too`);
      } else {
        assert.match(typed.problems.map((p) => p.message).join('; '), refusal, where);
        assert.equal(sdk.isError, true, `${where}: the SDK refuses it too`);
      }
    }
  } finally {
    await client.close();
  }
});

test('constraints apply to the value after typing and inside alternatives; draft-4 exclusive flags and arrays too', () => {
  const problems = (value: unknown, schema: Record<string, unknown>) =>
    typeArguments({ v: value }, { type: 'object', properties: { v: schema } }).problems.map((p) => p.message);
  assert.deepEqual(
    problems(123, { type: 'string', minLength: 4 }),
    ['argument "v" must be at least 4 characters long, got 3'],
    'number->string, then the length',
  );
  assert.deepEqual(problems(null, { type: ['string', 'null'], minLength: 4 }), [], 'minLength applies to strings only');
  assert.deepEqual(problems('ab', { anyOf: [{ type: 'string', minLength: 3 }, { type: 'integer' }] }), [
    'argument "v" must be one of: string | integer',
  ]);
  assert.deepEqual(problems(5, { type: 'number', minimum: 5, exclusiveMinimum: true }), [
    'argument "v" must be greater than 5, got 5',
  ]);
  assert.deepEqual(problems(10, { type: 'number', exclusiveMaximum: 10 }), [
    'argument "v" must be less than 10, got 10',
  ]);
  assert.deepEqual(problems([], { type: 'array', minItems: 1 }), ['argument "v" must have at least 1 item, got 0']);
  assert.deepEqual(
    problems('x', { type: 'string', format: 'constructor' }),
    [],
    'an unknown format is left to the tool',
  );
  assert.deepEqual(
    problems('x', { type: 'string', pattern: '(' }),
    [],
    'a pattern this engine cannot read is left to the tool',
  );
  assert.deepEqual(problems('2026-13-01', { type: 'string', format: 'date' }), [
    'argument "v" must be a date (YYYY-MM-DD), got "2026-13-01"',
  ]);
});
