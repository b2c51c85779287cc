import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { z } from 'zod';
import { fromRoot } from '../../core/paths.js';
import { CampaignConfig } from '../../schemas/campaign.js';
import { PolicyUpdateInput } from '../../schemas/training.js';

// The update-settings table of docs/ARCHITECTURE.md follows each optimizer and GRPO setting from the campaign file to
// the trainer: campaign key (schemas/campaign.ts) → policyUpdate payload key (built in workflows/grpo-step.ts, from
// the GrpoStepInput that workflows/inputs.ts makes of the campaign config) → the field python/finalstate/config.py
// reads it into, by the name the exported PolicyUpdateInput schema gives it (its `python`, else its key in
// snake_case). Every row is checked against those files, read as text (and the zod schemas, imported), so the test
// needs no PostgreSQL, Temporal or Python.

const read = (...parts: string[]) => fs.readFileSync(fromRoot(...parts), 'utf8');
const architecture = read('docs', 'ARCHITECTURE.md');
const grpoStep = read('workflows', 'grpo-step.ts');
const inputs = read('workflows', 'inputs.ts');
const configPy = read('python', 'finalstate', 'config.py');

interface Row {
  /** Dotted campaign-file key; null for `—`, a value the workflow supplies. */
  campaign: string | null;
  payload: string;
  python: string;
  line: string;
}

const SECTION = '## Update settings';

/** The section of the page that holds the table, up to the next `## ` heading. */
function section(): string {
  const start = architecture.indexOf(`\n${SECTION}`);
  assert.ok(start >= 0, `docs/ARCHITECTURE.md has no "${SECTION}" section`);
  const end = architecture.indexOf('\n## ', start + 1);
  return architecture.slice(start, end < 0 ? undefined : end);
}

function tableRows(): Row[] {
  const lines = section()
    .split('\n')
    .filter((l) => l.startsWith('|'));
  assert.ok(lines.length > 2, `no table under "${SECTION}" in docs/ARCHITECTURE.md`);
  const code = (cell: string, line: string): string => {
    const m = /^`([^`]+)`$/.exec(cell);
    assert.ok(m, `${line}: "${cell}" is not one \`name\``);
    return m[1]!;
  };
  return lines.slice(2).flatMap((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    assert.equal(cells.length, 3, `${line}: a row has three cells (campaign file, payload, Python)`);
    const [campaign, payload, python] = cells as [string, string, string];
    // A row may name several settings of one object at once: `a.{b, c}` in every cell, in the same order.
    const payloads = expand(code(payload, line));
    const pythons = expand(code(python, line));
    const campaigns = campaign === '—' ? payloads.map(() => null) : expand(code(campaign, line));
    assert.ok(
      campaigns.length === payloads.length && pythons.length === payloads.length,
      `${line}: each cell names as many settings`,
    );
    return payloads.map((p, i) => ({ campaign: campaigns[i]!, payload: p, python: pythons[i]!, line }));
  });
}

/** `update.loss.{clipLow, clipHigh}` → update.loss.clipLow, update.loss.clipHigh; a plain name is itself. */
function expand(name: string): string[] {
  const m = /^([^{}]*)\{([^{}]+)\}([^{}]*)$/.exec(name);
  return m ? m[2]!.split(',').map((part) => `${m[1]}${part.trim()}${m[3]}`) : [name];
}

/** The text from `open` (an opening bracket) to its matching close, skipping strings and comments. */
function balanced(source: string, open: number): string {
  const pairs: Record<string, string> = { '{': '}', '(': ')', '[': ']' };
  const stack: string[] = [];
  for (let i = open; i < source.length; i++) {
    const ch = source[i]!;
    if (source.startsWith('//', i)) i = source.indexOf('\n', i);
    else if (source.startsWith('/*', i)) i = source.indexOf('*/', i) + 1;
    else if (ch === "'" || ch === '"' || ch === '`') {
      const close = source.indexOf(ch, i + 1);
      assert.ok(close > 0, 'unterminated string');
      i = close;
    } else if (ch in pairs) stack.push(pairs[ch]!);
    else if (ch === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return source.slice(open, i + 1);
    }
  }
  assert.fail('unbalanced brackets');
}

/** The entries `key: expression` (shorthand `key` is `key: key`) of an object literal's text; spreads are left out. */
function entries(literal: string): Map<string, string> {
  const body = literal
    .slice(1, -1)
    .split('\n')
    .filter((l) => !/^\s*\/\//.test(l))
    .join('\n');
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of body) {
    if ('({['.includes(ch)) depth++;
    if (')}]'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  const map = new Map<string, string>();
  for (const part of parts.map((p) => p.trim()).filter((p) => p && !p.startsWith('...'))) {
    const m = /^(\w+)\s*(?::\s*([\s\S]+))?$/.exec(part);
    assert.ok(m, `cannot read the object entry "${part}"`);
    map.set(m[1]!, (m[2] ?? m[1]!).replace(/\s+/g, ' ').trim());
  }
  return map;
}

/** The object literal that `fn` in `source` returns (its first `return {`). */
function returnedLiteral(source: string, fn: string, file: string): Map<string, string> {
  const at = source.search(new RegExp(`function ${fn}\\(`));
  assert.ok(at >= 0, `${file} has no function ${fn}`);
  const ret = source.indexOf('return {', at);
  assert.ok(ret >= 0, `${fn} in ${file} returns no object literal`);
  return entries(balanced(source, ret + 'return '.length));
}

/**
 * The `policyUpdate` payload workflows/grpo-step.ts sends: payload key → the expression it is built from. A spread of
 * the rest of `input.update` (`const { a, b, ...rest } = input.update;`) sends every other key of the campaign's
 * update under its own name: `input.update.<key>`.
 */
function payloadEntries(): Map<string, string> {
  const call = /\.policyUpdate\(\s*\{/.exec(grpoStep);
  assert.ok(call, 'workflows/grpo-step.ts calls no policyUpdate with an object literal');
  const literal = balanced(grpoStep, call.index + call[0].length - 1);
  const sent = new Map<string, string>();
  for (const m of grpoStep.matchAll(/const \{([^}]*)\.\.\.(\w+),?\s*\} = input\.update;/g)) {
    if (!literal.includes(`...${m[2]}`)) continue;
    const kept = new Set(m[1]!.split(',').map((part) => part.split(':')[0]!.trim()));
    const update = Object.keys(campaignSchema.properties?.update?.properties ?? {});
    for (const key of update.filter((k) => !kept.has(k))) sent.set(key, `input.update.${key}`);
  }
  for (const [key, expression] of entries(literal)) sent.set(key, expression);
  return sent;
}

/** Names grpo-step.ts destructures from its input (`const { campaignId, step, settings } = input;`). */
function fromInput(): Set<string> {
  const names = new Set<string>();
  for (const m of grpoStep.matchAll(/const \{([^}]+)\} = input;/g))
    for (const name of m[1]!.split(',')) names.add(name.trim());
  return names;
}

/** Names grpo-step.ts destructures from its input's update under their own name (`const { checkpointDir } = input.update;`). */
function fromUpdate(): Set<string> {
  const names = new Set<string>();
  for (const m of grpoStep.matchAll(/const \{([^}]+)\} = input\.update;/g))
    for (const part of m[1]!.split(',').map((p) => p.trim())) if (/^\w+$/.test(part)) names.add(part);
  return names;
}

/** The GrpoStepInput path a payload expression reads (input.update.optimizer → [update, optimizer]), or null. */
function inputPath(expression: string): string[] | null {
  const direct = /\binput\.([\w.]+)/.exec(expression);
  if (direct) return direct[1]!.split('.');
  const name = /^([A-Za-z_]\w*)((?:\.\w+)*)/.exec(expression);
  if (name && fromInput().has(name[1]!)) return [name[1]!, ...name[2]!.split('.').filter(Boolean)];
  if (name && fromUpdate().has(name[1]!)) return ['update', name[1]!, ...name[2]!.split('.').filter(Boolean)];
  return null;
}

/**
 * The campaign-config key a GrpoStepInput path comes from, as workflows/inputs.ts builds it (`update: config.update`;
 * `settings: episodeSettings(config, …)`, whose `seed: config.seed`), or null for a value the workflow derives.
 */
function campaignPath(path: string[], fn = 'grpoStepInput'): string[] | null {
  const expression = returnedLiteral(inputs, fn, 'workflows/inputs.ts').get(path[0]!);
  assert.ok(expression !== undefined, `workflows/inputs.ts ${fn} sets no ${path[0]}`);
  const direct = /^config\.([\w.]+)$/.exec(expression);
  if (direct) return [...direct[1]!.split('.'), ...path.slice(1)];
  const call = /^(\w+)\(config\b/.exec(expression);
  if (call && path.length > 1) return campaignPath(path.slice(1), call[1]!);
  return null;
}

/** Where the payload key `payload` comes from in the campaign file, through grpo-step.ts and inputs.ts. */
function campaignKeyOf(payload: string): string | null {
  const [top, ...rest] = payload.split('.');
  const expression = payloadEntries().get(top!);
  assert.ok(expression !== undefined, `workflows/grpo-step.ts sends no ${top} to policyUpdate`);
  const path = inputPath(expression);
  const campaign = path && campaignPath(path);
  return campaign ? [...campaign, ...rest].join('.') : null;
}

/** The dataclasses of config.py: the payload path each reads (its `_path`) → its field names. */
function pythonSections(): Map<string, Set<string>> {
  const sections = new Map<string, Set<string>>();
  for (const m of configPy.matchAll(/^class (\w+)\(_Section\):\n([\s\S]*?)(?=^\S|(?![\s\S]))/gm)) {
    const path = /^ {4}_path: ClassVar\[[^\]]*\]\] = \(([^)]*)\)/m.exec(m[2]!);
    assert.ok(path, `config.py ${m[1]} has no _path`);
    const key = [...path[1]!.matchAll(/"(\w+)"/g)].map((k) => k[1]!).join('.');
    sections.set(key, new Set([...m[2]!.matchAll(/^ {4}(\w+): (?!ClassVar)/gm)].map((f) => f[1]!)));
  }
  return sections;
}

/** The Python field a payload key is read into, e.g. optimizer.maxGradNorm → optim.grad_clip. */
function pythonNameOf(payload: string): string {
  const sections = pythonSections();
  const segments = payload.split('.');
  const names: string[] = [];
  let schema: JsonSchema = payloadSchema;
  for (const [i, segment] of segments.entries()) {
    schema = schema.properties![segment]!;
    const name = schema.python ?? segment.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
    const fields = sections.get(segments.slice(0, i).join('.'));
    assert.ok(
      fields,
      `python/finalstate/config.py has no class for ${segments.slice(0, i).join('.') || 'the payload'}`,
    );
    assert.ok(fields.has(name), `python/finalstate/config.py reads no field ${name} from "${segment}" (${payload})`);
    names.push(name);
  }
  return names.join('.');
}

type JsonSchema = { properties?: Record<string, JsonSchema>; python?: string };
const jsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as unknown as JsonSchema;

/** The schema of a dotted key inside an object schema, or undefined when there is no such key. */
function at(schema: JsonSchema, dotted: string): JsonSchema | undefined {
  let s: JsonSchema | undefined = schema;
  for (const segment of dotted.split('.')) s = s?.properties?.[segment];
  return s;
}

/** The dotted keys of every leaf below `prefix` (the prefix itself when it is a leaf). */
function leaves(schema: JsonSchema, prefix: string): string[] {
  const props = schema.properties;
  if (!props) return [prefix];
  return Object.entries(props).flatMap(([key, s]) => leaves(s, `${prefix}.${key}`));
}

const rows = tableRows();
const campaignSchema = jsonSchema(CampaignConfig);
const payloadSchema = jsonSchema(PolicyUpdateInput);

test('every campaign key of the update-settings table is a key of the campaign config schema', () => {
  const missing = rows.filter((r) => r.campaign !== null && at(campaignSchema, r.campaign) === undefined);
  assert.deepEqual(
    missing.map((r) => r.campaign),
    [],
    'keys the table names that CampaignConfig (schemas/campaign.ts) does not have',
  );
});

test('every payload key of the table is one of PolicyUpdateInput, and one leaf of it', () => {
  for (const r of rows) {
    const schema = at(payloadSchema, r.payload);
    assert.ok(schema, `${r.payload}: not a key of PolicyUpdateInput (schemas/training.ts)`);
    assert.equal(schema.properties, undefined, `${r.payload}: an object; the table lists each of its keys instead`);
  }
  const payloads = rows.map((r) => r.payload);
  assert.deepEqual(
    payloads.filter((p, i) => payloads.indexOf(p) !== i),
    [],
    'payload keys listed twice',
  );
});

test('workflows/grpo-step.ts builds each payload key from the campaign key the table names', () => {
  const wrong = rows
    .map((r) => ({ row: r, actual: campaignKeyOf(r.payload) }))
    .filter(({ row, actual }) => actual !== row.campaign)
    .map(({ row, actual }) => `${row.payload}: the table says ${row.campaign ?? '—'}, the code reads ${actual ?? '—'}`);
  assert.deepEqual(wrong, []);
});

test('python/finalstate/config.py reads each payload key into the field the table names', () => {
  const wrong = rows
    .map((r) => ({ row: r, actual: pythonNameOf(r.payload) }))
    .filter(({ row, actual }) => actual !== row.python)
    .map(({ row, actual }) => `${row.payload}: the table says ${row.python}, config.py reads it into ${actual}`);
  assert.deepEqual(wrong, []);
});

test('every key grpo-step.ts sends to policyUpdate, down to each setting, has its row', () => {
  const sent = [...payloadEntries().keys()];
  assert.ok(sent.length > 0);
  const expected = sent.flatMap((key) => {
    const schema = payloadSchema.properties?.[key];
    assert.ok(schema, `grpo-step.ts sends ${key}, which PolicyUpdateInput does not have`);
    return leaves(schema, key);
  });
  const listed = new Set(rows.map((r) => r.payload));
  assert.deepEqual(
    expected.filter((k) => !listed.has(k)),
    [],
    'payload keys missing from the table in docs/ARCHITECTURE.md',
  );
  assert.deepEqual(
    [...listed].filter((k) => !expected.includes(k)),
    [],
    'table rows for payload keys grpo-step.ts does not send',
  );
});

test("every key of the campaign's `update` is in the table or named beside it as staying in TypeScript", () => {
  const update = campaignSchema.properties?.update?.properties;
  assert.ok(update, 'CampaignConfig has no update object');
  const text = section();
  const inTable = (key: string) =>
    rows.some((r) => r.campaign === `update.${key}` || r.campaign?.startsWith(`update.${key}.`));
  assert.deepEqual(
    Object.keys(update).filter((key) => !inTable(key) && !text.includes(`\`update.${key}\``)),
    [],
    `update keys the "${SECTION}" section of docs/ARCHITECTURE.md does not account for`,
  );
});
