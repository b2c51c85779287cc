import { appendAll } from '../../core/arrays.js';
import { textPrefix } from './text-cut.js';

/**
 * Argument typing against a tool's JSON Schema (the MCP `inputSchema`). The rules are documented in
 * docs/interpreter.md: a value that already has the declared type is kept; a few unambiguous conversions are applied
 * and recorded; everything else is a problem reported to the agent. Nothing is ever dropped silently.
 */

export type JsonSchema = Record<string, unknown>;

export type ArgumentProblemKind = 'missing_argument' | 'extra_argument' | 'invalid_argument';

export interface ArgumentProblem {
  kind: ArgumentProblemKind;
  path: string;
  message: string;
}

export interface AppliedCoercion {
  path: string;
  from: unknown;
  to: unknown;
  rule: string;
}

type Typed = { ok: true; value: unknown; coercions: AppliedCoercion[] } | { ok: false; problems: ArgumentProblem[] };
type Mode = 'exact' | 'coerce';

const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Most characters of a value quoted back in a message: the agent needs to recognise it, not to read it whole. */
const QUOTED_CHARS = 60;

/** A value as a message quotes it: JSON, a long string cut (never inside a surrogate pair) with "…". */
function quote(value: unknown): string {
  if (typeof value !== 'string' || value.length <= QUOTED_CHARS) return JSON.stringify(value);
  return `${JSON.stringify(textPrefix(value, QUOTED_CHARS))}… (${value.length.toLocaleString('en-US')} characters)`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${quote(value)}`;
}

function invalid(path: string, message: string): Typed {
  return { ok: false, problems: [{ kind: 'invalid_argument', path, message: `argument "${path}" ${message}` }] };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

function typeArray(value: unknown[], schema: JsonSchema, path: string, mode: Mode): Typed {
  const items = isPlainObject(schema.items) ? schema.items : undefined;
  if (!items) return { ok: true, value, coercions: [] };
  const out: unknown[] = [];
  const coercions: AppliedCoercion[] = [];
  const problems: ArgumentProblem[] = [];
  value.forEach((item, index) => {
    const typed = typeValue(item, items, childPath(path, index), mode);
    if (typed.ok) {
      out.push(typed.value);
      appendAll(coercions, typed.coercions);
    } else appendAll(problems, typed.problems);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out, coercions };
}

function typeObject(value: Record<string, unknown>, schema: JsonSchema, path: string, mode: Mode): Typed {
  const properties = isPlainObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const additional = schema.additionalProperties;
  const declaresProperties = isPlainObject(schema.properties);
  const out: Record<string, unknown> = {};
  const coercions: AppliedCoercion[] = [];
  const problems: ArgumentProblem[] = [];
  for (const name of required) {
    if (!Object.hasOwn(value, name)) {
      problems.push({
        kind: 'missing_argument',
        path: childPath(path, name),
        message: `missing required argument "${childPath(path, name)}"`,
      });
    }
  }
  for (const [key, item] of Object.entries(value)) {
    const where = childPath(path, key);
    // own properties only: "constructor" or "__proto__" must not find Object.prototype's members
    let itemSchema: JsonSchema | undefined = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (!itemSchema) {
      if (isPlainObject(additional)) itemSchema = additional;
      else if (additional === true || (additional === undefined && !declaresProperties)) itemSchema = {};
      else {
        const known = Object.keys(properties);
        problems.push({
          kind: 'extra_argument',
          path: where,
          message: `unexpected argument "${where}"${known.length > 0 ? ` (accepted: ${known.join(', ')})` : ''}`,
        });
        continue;
      }
    }
    const typed = typeValue(item, itemSchema, where, mode);
    if (typed.ok) {
      // defineProperty, not assignment: a declared "__proto__" stays an own property instead of replacing the prototype
      Object.defineProperty(out, key, { value: typed.value, enumerable: true, writable: true, configurable: true });
      appendAll(coercions, typed.coercions);
    } else appendAll(problems, typed.problems);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out, coercions };
}

/** Type `value` as the single JSON type `type`; in `coerce` mode the documented conversions apply. */
function typeAs(type: string, value: unknown, schema: JsonSchema, path: string, mode: Mode): Typed {
  const coerced = (to: unknown, rule: string): Typed => ({
    ok: true,
    value: to,
    coercions: [{ path, from: value, to, rule }],
  });
  switch (type) {
    case 'string':
      if (typeof value === 'string') return { ok: true, value, coercions: [] };
      if (mode === 'coerce' && (typeof value === 'number' || typeof value === 'boolean')) {
        return coerced(String(value), `${typeof value}->string`);
      }
      return invalid(path, `must be a string, got ${describe(value)}`);
    case 'integer':
      if (typeof value === 'number' && Number.isInteger(value)) return { ok: true, value, coercions: [] };
      if (mode === 'coerce' && typeof value === 'string' && INTEGER_TEXT.test(value.trim())) {
        const n = Number(value.trim());
        if (Number.isSafeInteger(n)) return coerced(n, 'string->integer');
      }
      return invalid(path, `must be an integer, got ${describe(value)}`);
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value, coercions: [] };
      if (mode === 'coerce' && typeof value === 'string' && NUMBER_TEXT.test(value.trim())) {
        const n = Number(value.trim());
        if (Number.isFinite(n)) return coerced(n, 'string->number');
      }
      return invalid(path, `must be a number, got ${describe(value)}`);
    case 'boolean':
      if (typeof value === 'boolean') return { ok: true, value, coercions: [] };
      if (mode === 'coerce' && typeof value === 'string' && ['true', 'false'].includes(value.trim().toLowerCase())) {
        return coerced(value.trim().toLowerCase() === 'true', 'string->boolean');
      }
      return invalid(path, `must be a boolean (true or false), got ${describe(value)}`);
    case 'null':
      return value === null
        ? { ok: true, value, coercions: [] }
        : invalid(path, `must be null, got ${describe(value)}`);
    case 'array': {
      if (Array.isArray(value)) return typeArray(value, schema, path, mode);
      if (mode === 'coerce' && typeof value === 'string') {
        const parsed = parseJsonText(value);
        if (Array.isArray(parsed)) {
          const typed = typeArray(parsed, schema, path, mode);
          return typed.ok
            ? { ...typed, coercions: [{ path, from: value, to: parsed, rule: 'json-text->array' }, ...typed.coercions] }
            : typed;
        }
      }
      return invalid(path, `must be an array, got ${describe(value)}`);
    }
    case 'object': {
      if (isPlainObject(value)) return typeObject(value, schema, path, mode);
      if (mode === 'coerce' && typeof value === 'string') {
        const parsed = parseJsonText(value);
        if (isPlainObject(parsed)) {
          const typed = typeObject(parsed, schema, path, mode);
          return typed.ok
            ? {
                ...typed,
                coercions: [{ path, from: value, to: parsed, rule: 'json-text->object' }, ...typed.coercions],
              }
            : typed;
        }
      }
      return invalid(path, `must be an object, got ${describe(value)}`);
    }
    default:
      return { ok: true, value, coercions: [] };
  }
}

function checkAllowedValues(typed: Typed, schema: JsonSchema, path: string): Typed {
  if (!typed.ok) return typed;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if ('const' in schema && !same(typed.value, schema.const))
    return invalid(path, `must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((allowed) => same(typed.value, allowed))) {
    return invalid(
      path,
      `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(typed.value)}`,
    );
  }
  return typed;
}

/**
 * `format` values checked without a `pattern` of their own (zod writes its e-mail pattern next to the format; other
 * schema writers may not). The e-mail rule is as strict as zod's: a dotted local part, a domain of labels, a TLD of
 * two letters or more.
 */
const FORMATS: Record<string, { rule: RegExp; what: string }> = {
  email: {
    rule: /^[A-Za-z0-9_'+-]+(\.[A-Za-z0-9_'+-]+)*@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/,
    what: 'a valid e-mail address',
  },
  uuid: { rule: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, what: 'a UUID' },
  date: { rule: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, what: 'a date (YYYY-MM-DD)' },
  'date-time': {
    rule: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
    what: 'a date-time (ISO 8601 with offset)',
  },
};

function compiledPattern(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern);
  } catch {
    return undefined; // a pattern this engine cannot read is left to the tool
  }
}

const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/**
 * The JSON-Schema value constraints the MCP SDK's input validation (zod) enforces: string length, `pattern` and
 * `format`, numeric bounds (`exclusiveMinimum` is how zod writes `positive()`), array length. Checked here so the
 * agent gets the reason as a parse failure instead of the SDK's rejection.
 */
function checkConstraints(typed: Typed, schema: JsonSchema, path: string): Typed {
  if (!typed.ok) return typed;
  const value = typed.value;
  const num = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  if (typeof value === 'string') {
    // minLength in code points (JSON Schema) and maxLength in UTF-16 units (zod): the stricter reading of each
    const minLength = num('minLength');
    const length = [...value].length;
    if (minLength !== undefined && length < minLength)
      return invalid(path, `must be at least ${count(minLength, 'character')} long, got ${length}`);
    const maxLength = num('maxLength');
    if (maxLength !== undefined && value.length > maxLength)
      return invalid(path, `must be at most ${count(maxLength, 'character')} long, got ${value.length}`);
    const format =
      typeof schema.format === 'string' && Object.hasOwn(FORMATS, schema.format) ? FORMATS[schema.format] : undefined;
    if (format && !format.rule.test(value)) return invalid(path, `must be ${format.what}, got ${quote(value)}`);
    const pattern = typeof schema.pattern === 'string' ? compiledPattern(schema.pattern) : undefined;
    if (pattern && !pattern.test(value)) {
      return invalid(
        path,
        format
          ? `must be ${format.what}, got ${quote(value)}`
          : `must match the pattern ${schema.pattern as string}, got ${quote(value)}`,
      );
    }
  }
  if (typeof value === 'number') {
    const exclusive = (key: 'Minimum' | 'Maximum') => {
      const flag = schema[`exclusive${key}`];
      if (typeof flag === 'number') return flag; // draft 6+
      return flag === true ? num(key.toLowerCase()) : undefined; // draft 4: a flag on minimum/maximum
    };
    const minimum = schema.exclusiveMinimum === true ? undefined : num('minimum');
    const maximum = schema.exclusiveMaximum === true ? undefined : num('maximum');
    const above = exclusive('Minimum');
    const below = exclusive('Maximum');
    if (minimum !== undefined && value < minimum) return invalid(path, `must be at least ${minimum}, got ${value}`);
    if (maximum !== undefined && value > maximum) return invalid(path, `must be at most ${maximum}, got ${value}`);
    if (above !== undefined && !(value > above)) return invalid(path, `must be greater than ${above}, got ${value}`);
    if (below !== undefined && !(value < below)) return invalid(path, `must be less than ${below}, got ${value}`);
  }
  if (Array.isArray(value)) {
    const minItems = num('minItems');
    if (minItems !== undefined && value.length < minItems)
      return invalid(path, `must have at least ${count(minItems, 'item')}, got ${value.length}`);
    const maxItems = num('maxItems');
    if (maxItems !== undefined && value.length > maxItems)
      return invalid(path, `must have at most ${count(maxItems, 'item')}, got ${value.length}`);
  }
  return typed;
}

/** Alternatives (a type list, anyOf, oneOf): the first that matches exactly wins, then the first that matches after coercion. */
function firstMatch(attempts: Array<(mode: Mode) => Typed>, path: string, mode: Mode, summary: string): Typed {
  const modes: Mode[] = mode === 'exact' ? ['exact'] : ['exact', 'coerce'];
  let lastProblems: ArgumentProblem[] = [];
  for (const m of modes) {
    for (const attempt of attempts) {
      const typed = attempt(m);
      if (typed.ok) return typed;
      lastProblems = typed.problems;
    }
  }
  if (attempts.length === 1) return { ok: false, problems: lastProblems };
  return invalid(path, `must be ${summary}`);
}

function typeValue(value: unknown, schema: JsonSchema, path: string, mode: Mode): Typed {
  const alternatives = (
    Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  ) as JsonSchema[] | undefined;
  if (alternatives && alternatives.length > 0) {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    const typed = firstMatch(
      alternatives.map((alt) => (m: Mode) => typeValue(value, { ...rest, ...alt }, path, m)),
      path,
      mode,
      `one of: ${alternatives.map((alt) => (typeof alt.type === 'string' ? alt.type : JSON.stringify(alt.type ?? alt.enum ?? alt.const ?? 'any'))).join(' | ')}`,
    );
    return checkAllowedValues(typed, schema, path);
  }
  const types =
    typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];
  if (types.length === 0)
    return checkConstraints(checkAllowedValues({ ok: true, value, coercions: [] }, schema, path), schema, path);
  const typed = firstMatch(
    types.map((type) => (m: Mode) => typeAs(type, value, schema, path, m)),
    path,
    mode,
    `one of the types ${types.join(' | ')}, got ${describe(value)}`,
  );
  return checkConstraints(checkAllowedValues(typed, schema, path), schema, path);
}

export interface TypedArguments {
  arguments: Record<string, unknown>;
  problems: ArgumentProblem[];
  coercions: AppliedCoercion[];
}

/**
 * Type a tool call's arguments object against the tool's input schema. Undeclared arguments are rejected unless the
 * schema explicitly allows them (`additionalProperties: true` or a schema).
 */
export function typeArguments(args: Record<string, unknown>, inputSchema: JsonSchema): TypedArguments {
  const schema: JsonSchema = { ...inputSchema, type: 'object' };
  if (!isPlainObject(schema.properties)) schema.properties = {};
  const typed = typeObject(args, schema, '', 'coerce');
  if (typed.ok) return { arguments: typed.value as Record<string, unknown>, problems: [], coercions: typed.coercions };
  return { arguments: args, problems: typed.problems, coercions: [] };
}
