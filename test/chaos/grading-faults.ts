import type { LoadedConfig } from '../../schemas/config.js';
import { withClient } from '../../infra/stack/postgres.js';
import { CAPTURE_APPLICATION_NAME } from './final-states.js';

/** The grader's snapshot: one simple-protocol query of one `SELECT * FROM "<table>"` per domain table. */
const SNAPSHOT = String.raw`^SELECT \* FROM "[^"]+"(; SELECT \* FROM "[^"]+")*$`;
/** Statements only grading sends to an episode database: its transaction and the SQL assertions around the snapshot. */
const GRADING_STATEMENTS = [
  'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  'SET TRANSACTION READ ONLY',
  'SAVEPOINT assertion',
  'ROLLBACK TO SAVEPOINT assertion; RELEASE SAVEPOINT assertion',
];

/**
 * Waits, on the server itself (a loop in plpgsql, so nothing travels between two looks), for an episode being graded,
 * and either cancels its snapshot statement while it runs (`cancel`, pg_cancel_backend: SQLSTATE 57014 for the grader)
 * or only names it (`find`), for the caller to crash the server under it. Episode databases only: not the golden
 * replays of expected states (`golden-*`) nor the final-state captures of the chaos fleet.
 */
export async function gradingInFlight(
  config: LoadedConfig,
  mode: 'cancel' | 'find',
  timeoutMs: number,
): Promise<{ database: string; pid: number }> {
  return withClient(config, 'postgres', async (client) => {
    await client.query(`CREATE FUNCTION pg_temp.grading_in_flight(p_cancel boolean, p_timeout_ms integer,
        p_snapshot text, p_statements text[], p_capture text) RETURNS text LANGUAGE plpgsql AS $$
      DECLARE v record; v_deadline timestamptz := clock_timestamp() + make_interval(secs => p_timeout_ms / 1000.0);
      BEGIN
        LOOP
          PERFORM pg_stat_clear_snapshot();
          FOR v IN SELECT pid, datname FROM pg_stat_activity
            WHERE datname LIKE 'fs\\_ep\\_%' AND datname NOT LIKE 'fs\\_ep\\_golden\\_%' AND application_name <> p_capture
              AND state = 'active' AND query ~ p_snapshot
            UNION ALL SELECT pid, datname FROM pg_stat_activity
            WHERE NOT p_cancel AND datname LIKE 'fs\\_ep\\_%' AND datname NOT LIKE 'fs\\_ep\\_golden\\_%'
              AND application_name <> p_capture AND state IN ('active', 'idle in transaction')
              AND query = ANY (p_statements)
          LOOP
            IF NOT p_cancel OR pg_cancel_backend(v.pid) THEN RETURN v.datname || ' ' || v.pid; END IF;
          END LOOP;
          IF clock_timestamp() > v_deadline THEN RETURN NULL; END IF;
          PERFORM pg_sleep(0.0005);
        END LOOP;
      END $$`);
    const res = await client.query<{ hit: string | null }>(
      'SELECT pg_temp.grading_in_flight($1, $2, $3, $4, $5) AS hit',
      [mode === 'cancel', timeoutMs, SNAPSHOT, GRADING_STATEMENTS, CAPTURE_APPLICATION_NAME],
    );
    const hit = res.rows[0]?.hit;
    if (!hit) throw new Error(`no episode was graded within ${timeoutMs / 1000} s`);
    const [database, pid] = hit.split(' ');
    return { database: database!, pid: Number(pid) };
  });
}
