import type pg from 'pg';
import { EPISODE_GROUP_ROLE } from './naming.js';
import { ident, literal } from './sql.js';

/**
 * A template keeps a copy of its own starting state in this schema: every table of `public` (the internal tables
 * included) as it was when the template was finished, the values of its sequences, and a function that puts a copy
 * of the template back into that state. A torn-down episode database is reset with it and reused as a spare instead
 * of being dropped and copied again (see DatabaseRecycler): the reset rewrites a few small tables, where a copy
 * writes and syncs every file of a database, its system catalogs included.
 *
 * Nobody but the admin may use the schema (PUBLIC has no USAGE on it, and the episode group no privilege on its
 * tables); what it holds is the seed every episode sees anyway.
 */
export const PRISTINE_SCHEMA = '_finalstate_pristine';
// Built into every template: bump INTERNAL_SCHEMA_VERSION (internal-tables.ts) when this SQL changes.

/** The tables a reset rewrites: ordinary and partitioned tables of `public` (a partition goes with its parent). */
const PUBLIC_TABLES = `SELECT c.oid, c.relname FROM pg_class c
  WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`;

/**
 * Run in the template, as its last change before the freeze. The restore function truncates every table (fresh files:
 * rows come back in the template's physical order), copies the rows back in (generated columns are computed again,
 * identity values kept), analyses each table as the template build did, sets the sequences, and unlinks every large
 * object (any role may create one). Triggers and foreign-key checks must not fire while raw rows are copied back:
 * the caller runs it with session_replication_role = replica, which takes a superuser.
 */
export function pristineStateSql(): string {
  const s = PRISTINE_SCHEMA;
  return `CREATE SCHEMA ${s};
REVOKE ALL ON SCHEMA ${s} FROM PUBLIC;
DO $$ DECLARE t record; BEGIN
  FOR t IN ${PUBLIC_TABLES} LOOP
    EXECUTE format('CREATE TABLE ${s}.%I AS SELECT * FROM public.%I', t.relname, t.relname);
  END LOOP;
END $$;
CREATE TABLE ${s}._finalstate_sequence_state AS
  SELECT format('public.%I', sequencename) AS name, coalesce(last_value, start_value) AS value, last_value IS NOT NULL AS called
  FROM pg_sequences WHERE schemaname = 'public';
CREATE FUNCTION ${s}.restore() RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE t record; columns text; tables text;
BEGIN
  PERFORM lo_unlink(oid) FROM pg_largeobject_metadata;
  SELECT string_agg(format('public.%I', relname), ', ') INTO tables FROM (${PUBLIC_TABLES}) p;
  IF tables IS NOT NULL THEN EXECUTE 'TRUNCATE ' || tables; END IF;
  FOR t IN ${PUBLIC_TABLES} LOOP
    SELECT string_agg(format('%I', attname), ', ' ORDER BY attnum) INTO columns FROM pg_attribute
      WHERE attrelid = t.oid AND attnum > 0 AND NOT attisdropped AND attgenerated = '';
    IF columns IS NOT NULL THEN
      EXECUTE format('INSERT INTO public.%I (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM ${s}.%I', t.relname, columns, columns, t.relname);
    END IF;
    EXECUTE format('ANALYZE public.%I', t.relname);
  END LOOP;
  PERFORM setval(name::regclass, value, called) FROM ${s}._finalstate_sequence_state;
END $$;
REVOKE ALL ON FUNCTION ${s}.restore() FROM PUBLIC`;
}

/**
 * Large objects unlinked per transaction before the restore: each unlink holds a lock until its transaction ends, in
 * the lock table every session of the cluster shares (max_locks_per_transaction x max_connections entries, about
 * 19,000 on the local cluster). Episode roles cannot create large objects (template-lockdown.ts); this bounds a reset
 * where something else did.
 */
export const LARGE_OBJECT_BATCH = 1000;

/**
 * Default privileges that members of the episode group set FOR ROLE the group (DROP OWNED BY an episode role removes
 * only its own): each entry is revoked from every grantee, and a cluster-wide one given back the built-in defaults,
 * after which PostgreSQL deletes it. A template holds none (the template build refuses a pack that sets them).
 */
const GROUP_DEFAULT_PRIVILEGES_RESET = `DO $$
DECLARE d record; g record; kind text; target text; grp text := ${literal(EPISODE_GROUP_ROLE)};
BEGIN
  FOR d IN SELECT defaclnamespace AS nsp, defaclobjtype AS t, defaclacl AS acl FROM pg_default_acl
      WHERE defaclrole = (SELECT oid FROM pg_roles WHERE rolname = grp) LOOP
    kind := CASE d.t WHEN 'r' THEN 'TABLES' WHEN 'S' THEN 'SEQUENCES' WHEN 'f' THEN 'FUNCTIONS' WHEN 'T' THEN 'TYPES'
      WHEN 'n' THEN 'SCHEMAS' END;
    IF kind IS NULL THEN RAISE EXCEPTION 'default privileges of unknown object type %', d.t; END IF;
    target := format('ALTER DEFAULT PRIVILEGES FOR ROLE %I', grp)
      || CASE WHEN d.nsp = 0 THEN '' ELSE format(' IN SCHEMA %I', d.nsp::regnamespace::text) END;
    FOR g IN SELECT DISTINCT grantee FROM aclexplode(d.acl) LOOP
      EXECUTE format('%s REVOKE ALL ON %s FROM %s', target, kind,
        CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(g.grantee::regrole::text) END);
    END LOOP;
    IF d.nsp = 0 THEN
      EXECUTE format('%s GRANT ALL ON %s TO %I', target, kind, grp);
      IF d.t = 'f' THEN EXECUTE target || ' GRANT EXECUTE ON FUNCTIONS TO PUBLIC'; END IF;
      IF d.t = 'T' THEN EXECUTE target || ' GRANT USAGE ON TYPES TO PUBLIC'; END IF;
    END IF;
  END LOOP;
  IF EXISTS (SELECT 1 FROM pg_default_acl WHERE defaclrole = (SELECT oid FROM pg_roles WHERE rolname = grp)) THEN
    RAISE EXCEPTION 'default privileges of % survive the reset', grp;
  END IF;
END $$`;

/**
 * Put a torn-down episode database back into its template's state, connected to it as the admin (a superuser) once
 * nobody else is: roll back any prepared transaction left in it, unlink large objects a batch per transaction,
 * restore the rows, drop whatever the episode's role owns or was granted in it, reset the default privileges it set
 * for the episode group, and reset the statistics counters (they would tell the next episode what this one did).
 * The rest of what a database keeps per database is out of an episode role's reach: docs/reliability.md lists it.
 */
export async function resetToPristine(client: pg.ClientBase, episodeRole: string): Promise<void> {
  const prepared = await client.query<{ gid: string }>(
    'SELECT gid FROM pg_prepared_xacts WHERE database = current_database()',
  );
  for (const { gid } of prepared.rows) await client.query(`ROLLBACK PREPARED ${literal(gid)}`);
  for (;;) {
    const unlinked = await client.query(
      `SELECT lo_unlink(oid) FROM (SELECT oid FROM pg_largeobject_metadata LIMIT ${LARGE_OBJECT_BATCH}) batch`,
    );
    if (!unlinked.rowCount) break;
  }
  const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [episodeRole]);
  await client.query(`BEGIN;
    SET LOCAL session_replication_role = replica;
    SELECT ${PRISTINE_SCHEMA}.restore();
    ${role.rowCount ? `DROP OWNED BY ${ident(episodeRole)};` : ''}
    ${GROUP_DEFAULT_PRIVILEGES_RESET};
    COMMIT;
    SELECT pg_stat_force_next_flush()`);
  // the counters of the restore itself are flushed when that query ends, so they are reset too
  await client.query('SELECT pg_stat_reset()');
}
