import type pg from 'pg';
import type { z } from 'zod';
import { UserError } from '../core/errors.js';
import type { AssertionOutcome } from '../schemas/grading.js';
import type { SqlAssertion } from '../schemas/task.js';
import { canonicalJson } from './canonical.js';
import { asInfrastructureError, isInfrastructureFault, sqlstateOf } from './pg-faults.js';
import { normaliseNumericText, runReadQuery } from './snapshot.js';

/** Assertion rows compare as sets of canonical rows; numbers and numeric text compare by value. */
function comparable(rows: Record<string, unknown>[]): string[] {
  const norm = (v: unknown): unknown =>
    typeof v === 'number' ? normaliseNumericText(String(v)) : typeof v === 'string' ? normaliseNumericText(v) : v;
  return rows.map((r) => canonicalJson(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, norm(v)])))).sort();
}

/**
 * An assertion whose query cannot run on any state (a syntax error, an unknown table or column, a write in the
 * read-only transaction): the task file is wrong, not the episode. `tasks validate` reports it against the task; an
 * episode that meets one ends as a malformed task, never with reward 0.
 */
export class AssertionQueryError extends UserError {
  override name = 'AssertionQueryError';
  constructor(
    readonly index: number,
    readonly description: string,
    readonly reason: string,
    readonly taskId?: string,
  ) {
    super(
      `${taskId === undefined ? '' : `task ${taskId}: `}assertions[${index}] (${description}): the query fails: ${reason}; fix the assertion's SQL`,
    );
  }
}

/**
 * What an error of an assertion's query means. The server or the connection failing (see pg-faults.ts), or a
 * transaction that must be tried again (40), is infrastructure. An error that the episode's rows cause, a data
 * exception (22: a cast or a division over the agent's values) or more rows than a scalar subquery takes (21), is the
 * assertion's answer on this state: it does not hold. Anything else is the query itself: a malformed task.
 */
function assertionErrorKind(err: unknown): 'infrastructure' | 'does-not-hold' | 'malformed' {
  const code = sqlstateOf(err);
  if (isInfrastructureFault(err) || code?.startsWith('40')) return 'infrastructure';
  if (code?.startsWith('21') || code?.startsWith('22')) return 'does-not-hold';
  return 'malformed';
}

/**
 * Run one assertion inside the caller's read-only transaction, as one extended-protocol statement in a savepoint
 * that is always rolled back, so that nothing it does (a setting changed through set_config, say) outlives it.
 * Only the query's answer decides the outcome: see assertionErrorKind for what its errors mean.
 */
export async function checkAssertion(
  client: pg.ClientBase,
  assertion: z.infer<typeof SqlAssertion>,
  index = 0,
  taskId?: string,
): Promise<z.infer<typeof AssertionOutcome>> {
  try {
    await client.query('SAVEPOINT assertion');
  } catch (err) {
    throw asInfrastructureError(err, `assertions[${index}] of ${taskId ?? 'a task'}`);
  }
  let failure: unknown;
  try {
    const actual = await runReadQuery(client, assertion.sql);
    const pass = canonicalJson(comparable(actual)) === canonicalJson(comparable(assertion.expect));
    return { description: assertion.description, pass, ...(pass ? {} : { actual }) };
  } catch (err) {
    failure = err;
    const kind = assertionErrorKind(err);
    if (kind === 'does-not-hold')
      return { description: assertion.description, pass: false, error: (err as Error).message };
    if (kind === 'infrastructure') throw asInfrastructureError(err, `assertions[${index}] of ${taskId ?? 'a task'}`);
    const code = sqlstateOf(err);
    throw new AssertionQueryError(
      index,
      assertion.description,
      `${(err as Error).message}${code ? ` (SQLSTATE ${code})` : ''}`,
      taskId,
    );
  } finally {
    await client.query('ROLLBACK TO SAVEPOINT assertion; RELEASE SAVEPOINT assertion').catch((err: unknown) => {
      // the assertion's own error says more; a rollback that fails after a success is the connection failing
      if (failure === undefined) throw asInfrastructureError(err, `assertions[${index}] of ${taskId ?? 'a task'}`);
    });
  }
}

/** Run a task's assertions in the caller's transaction, made read-only here whatever the caller began. */
export async function checkAssertions(
  client: pg.ClientBase,
  assertions: z.infer<typeof SqlAssertion>[],
  taskId?: string,
) {
  try {
    await client.query('SET TRANSACTION READ ONLY');
  } catch (err) {
    throw asInfrastructureError(err, `assertions of ${taskId ?? 'a task'}`);
  }
  const outcomes = [];
  for (const [index, assertion] of assertions.entries())
    outcomes.push(await checkAssertion(client, assertion, index, taskId));
  return outcomes;
}
