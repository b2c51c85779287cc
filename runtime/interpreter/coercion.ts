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

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
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
      coercions.push(...typed.coercions);
    } else problems.push(...typed.problems);
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
    if (!(name in value)) {
      problems.push({ kind: 'missing_argument', path: childPath(path, name), message: `missing required argument "${childPath(path, name)}"` });
    }
  }
  for (const [key, item] of Object.entries(value)) {
    const where = childPath(path, key);
    let itemSchema: JsonSchema | undefined = properties[key];
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
      out[key] = typed.value;
      coercions.push(...typed.coercions);
    } else problems.push(...typed.problems);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out, coercions };
}

/** Type `value` as the single JSON type `type`; in `coerce` mode the documented conversions apply. */
function typeAs(type: string, value: unknown, schema: JsonSchema, path: string, mode: Mode): Typed {
  const coerced = (to: unknown, rule: string): Typed => ({ ok: true, value: to, coercions: [{ path, from: value, to, rule }] });
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
      return value === null ? { ok: true, value, coercions: [] } : invalid(path, `must be null, got ${describe(value)}`);
    case 'array': {
      if (Array.isArray(value)) return typeArray(value, schema, path, mode);
      if (mode === 'coerce' && typeof value === 'string') {
        const parsed = parseJsonText(value);
        if (Array.isArray(parsed)) {
          const typed = typeArray(parsed, schema, path, mode);
          return typed.ok ? { ...typed, coercions: [{ path, from: value, to: parsed, rule: 'json-text->array' }, ...typed.coercions] } : typed;
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
          return typed.ok ? { ...typed, coercions: [{ path, from: value, to: parsed, rule: 'json-text->object' }, ...typed.coercions] } : typed;
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
  if ('const' in schema && !same(typed.value, schema.const)) return invalid(path, `must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((allowed) => same(typed.value, allowed))) {
    return invalid(path, `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(typed.value)}`);
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
  const alternatives = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined) as
    | JsonSchema[]
    | undefined;
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
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];
  if (types.length === 0) return checkAllowedValues({ ok: true, value, coercions: [] }, schema, path);
  const typed = firstMatch(
    types.map((type) => (m: Mode) => typeAs(type, value, schema, path, m)),
    path,
    mode,
    `one of the types ${types.join(' | ')}, got ${describe(value)}`,
  );
  return checkAllowedValues(typed, schema, path);
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
