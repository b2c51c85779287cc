import type pg from 'pg';

/** Part of every template's content hash: bump it when LOCKDOWN_SQL changes, so that templates are built again. */
export const TEMPLATE_LOCKDOWN_VERSION = 1;

/**
 * What PUBLIC may use by default and an episode role must not, revoked in every template (and so in every episode
 * database copied from it):
 * - creating large objects (`lo_create`, `lo_creat`, `lo_from_bytea`, `lo_import`; the client's large-object calls go
 *   through the same functions): any role could make tens of thousands, which outlive the episode and whose removal
 *   takes a lock each;
 * - advisory locks: they need no privilege, and one session taking enough of them fills the lock table every session
 *   of the cluster shares ("out of shared memory" for everyone);
 * - the other sessions and databases of the cluster: `pg_stat_*` and `pg_statio_*` (activity, per-database counters,
 *   progress, SSL), `pg_locks`, `pg_prepared_xacts` and the functions behind them;
 * - the comments of every database and the settings of every role (`pg_shdescription`, `pg_db_role_setting`).
 * Episode tools use none of it. The objects belong to the bootstrap superuser, so only a superuser admin can revoke
 * them (see lockDownTemplate).
 */
const LOCKDOWN_SQL = String.raw`DO $$ DECLARE f regprocedure; v regclass; BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace AND (
      p.proname IN ('lo_creat', 'lo_create', 'lo_from_bytea', 'lo_import', 'pg_lock_status', 'pg_blocking_pids',
                    'pg_safe_snapshot_blocking_pids', 'pg_prepared_xact')
      OR p.proname LIKE 'pg\_advisory\_%' OR p.proname LIKE 'pg\_try\_advisory\_%' OR p.proname LIKE 'pg\_stat\_get\_%')
  LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
  END LOOP;
  FOR v IN SELECT c.oid::regclass FROM pg_class c WHERE c.relnamespace = 'pg_catalog'::regnamespace AND (
      (c.relkind = 'v' AND (c.relname LIKE 'pg\_stat\_%' OR c.relname LIKE 'pg\_statio\_%'
                            OR c.relname IN ('pg_locks', 'pg_prepared_xacts')))
      OR c.relname IN ('pg_shdescription', 'pg_db_role_setting'))
  LOOP
    EXECUTE format('REVOKE SELECT ON %s FROM PUBLIC', v);
  END LOOP;
END $$`;

const SQLSTATE_INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Revoke what LOCKDOWN_SQL lists, inside the template's build transaction. On a managed server where the admin is not
 * a superuser this is refused and skipped: its episode databases are then dropped after each episode, never reset and
 * reused (see EnvironmentBackend), and docs/reliability.md says what that leaves open.
 */
export async function lockDownTemplate(client: pg.ClientBase): Promise<void> {
  await client.query('SAVEPOINT lockdown');
  await client.query(LOCKDOWN_SQL).catch(async (err: { code?: string }) => {
    if (err.code !== SQLSTATE_INSUFFICIENT_PRIVILEGE) throw err;
    await client.query('ROLLBACK TO SAVEPOINT lockdown');
  });
}
