import { UserError } from '../core/errors.js';
import type { DomainDefinition } from './domain.js';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const MINI_MAX_TOOLS = 6;
const MINI_MAX_POLICY_CHARS = 1500;

/**
 * Sources of nondeterminism a pack must not use: episodes take time from ctx.now and ids from ctx.nextId. Checked in
 * the schema SQL and in each handler's own source (a cheap lint; helpers it calls are not seen, the oracle replay in
 * `tasks verify` catches the rest).
 */
const WALL_CLOCK_OR_RANDOM: [RegExp, string][] = [
  [
    /\bDate\.now\s*\(|\bnew Date\(\s*\)|\bMath\.random\s*\(|\brandomUUID\s*\(|\bperformance\.now\s*\(/,
    'the wall clock or a random source',
  ],
  [
    /\b(now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday|random|gen_random_uuid|uuid_generate_v[14])\s*\(/i,
    'a wall-clock or random SQL function',
  ],
  [/\bcurrent_(timestamp|date|time)\b|\blocaltimestamp\b/i, 'the SQL wall clock'],
];

/** A schema the pack's SQL creates (the template build catches one made any other way). */
const CREATE_SCHEMA = /\bcreate\s+schema\s+(?:if\s+not\s+exists\s+)?("[^"]+"|[a-z_][a-z0-9_$]*)/gi;

function nondeterminism(source: string): string | undefined {
  return WALL_CLOCK_OR_RANDOM.find(([pattern]) => pattern.test(source))?.[1];
}

/** Static checks of a domain pack (what can be checked without a database); the template build checks the rest. */
export function checkDomainDefinition(domain: DomainDefinition): void {
  const problems: string[] = [];
  if (!IDENTIFIER.test(domain.name))
    problems.push(`name ${JSON.stringify(domain.name)} must be a lower_snake_case identifier`);
  const toolNames = new Set<string>();
  for (const tool of domain.tools) {
    if (toolNames.has(tool.name)) problems.push(`tool ${tool.name} is defined twice`);
    toolNames.add(tool.name);
  }
  for (const [profile, names] of Object.entries(domain.profileTools)) {
    for (const name of names)
      if (!toolNames.has(name)) problems.push(`profileTools.${profile} names unknown tool ${name}`);
  }
  if (domain.profileTools.mini.length > MINI_MAX_TOOLS)
    problems.push(`profileTools.mini has ${domain.profileTools.mini.length} tools (at most ${MINI_MAX_TOOLS})`);
  if ((domain.policy.mini === '') !== (domain.profileTools.mini.length === 0))
    problems.push('policy.mini and profileTools.mini go together: give both to serve the mini profile, or neither');
  if (domain.policy.mini.length > MINI_MAX_POLICY_CHARS)
    problems.push(`policy.mini has ${domain.policy.mini.length} characters (at most ${MINI_MAX_POLICY_CHARS})`);
  for (const table of [...Object.keys(domain.grading), ...Object.keys(domain.seed)]) {
    if (!IDENTIFIER.test(table) || table.startsWith('_finalstate'))
      problems.push(`table name ${JSON.stringify(table)} is not a domain table identifier`);
  }
  for (const name of Object.keys(domain.seed))
    if (!domain.grading[name]) problems.push(`seed table ${name} has no grading policy`);
  for (const [, schema] of domain.schemaSql.matchAll(CREATE_SCHEMA))
    problems.push(
      `schemaSql creates schema ${schema}: an episode database is reset by restoring schema public only, so rows there would pass from one episode to the next; create every table in public (drop the CREATE SCHEMA and the ${schema}. qualifier)`,
    );
  const inSchema = nondeterminism(domain.schemaSql);
  if (inSchema) problems.push(`schemaSql uses ${inSchema} (use ctx.now and ctx.nextId in tools instead)`);
  for (const tool of domain.tools) {
    const inHandler = nondeterminism(tool.handler.toString());
    if (inHandler) problems.push(`tool ${tool.name} reads ${inHandler} (use ctx.now and ctx.nextId)`);
  }
  if (problems.length) throw new UserError(`domain ${domain.name}: invalid pack:\n  ${problems.join('\n  ')}`);
}
