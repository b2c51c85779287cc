import type pg from 'pg';
import type { z } from 'zod';
import type { AssertionOutcome } from '../schemas/grading.js';
import type { SqlAssertion } from '../schemas/task.js';
import { canonicalJson } from './canonical.js';
import { normaliseNumericText, runReadQuery } from './snapshot.js';

/** Assertion rows compare as sets of canonical rows; numbers and numeric text compare by value. */
function comparable(rows: Record<string, unknown>[]): string[] {
  const norm = (v: unknown): unknown =>
    typeof v === 'number' ? normaliseNumericText(String(v)) : typeof v === 'string' ? normaliseNumericText(v) : v;
  return rows.map((r) => canonicalJson(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, norm(v)])))).sort();
}

/**
 * Run one assertion inside the caller's read-only transaction, as one extended-protocol statement in a savepoint
 * that is always rolled back, so that nothing it does (a setting changed through set_config, say) outlives it.
 * A failing query is a failed assertion.
 */
export async function checkAssertion(
  client: pg.ClientBase,
  assertion: z.infer<typeof SqlAssertion>,
): Promise<z.infer<typeof AssertionOutcome>> {
  await client.query('SAVEPOINT assertion');
  try {
    const actual = await runReadQuery(client, assertion.sql);
    const pass = canonicalJson(comparable(actual)) === canonicalJson(comparable(assertion.expect));
    return { description: assertion.description, pass, ...(pass ? {} : { actual }) };
  } catch (err) {
    return { description: assertion.description, pass: false, error: (err as Error).message };
  } finally {
    await client.query('ROLLBACK TO SAVEPOINT assertion; RELEASE SAVEPOINT assertion');
  }
}

/** Run a task's assertions in the caller's transaction, made read-only here whatever the caller began. */
export async function checkAssertions(client: pg.ClientBase, assertions: z.infer<typeof SqlAssertion>[]) {
  await client.query('SET TRANSACTION READ ONLY');
  const outcomes = [];
  for (const assertion of assertions) outcomes.push(await checkAssertion(client, assertion));
  return outcomes;
}
