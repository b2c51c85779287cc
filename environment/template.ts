import pg from 'pg';
import type { LoadedConfig } from '../schemas/config.js';
import { UserError } from '../core/errors.js';
import { connectionConfig } from './connection.js';
import { readCatalog, type DatabaseCatalog } from './catalog.js';
import { contentHash } from './canonical.js';
import type { DomainDefinition } from './domain.js';
import { INTERNAL_SCHEMA_VERSION, INTERNAL_TABLES_SQL, internalPrivilegesSql } from './internal-tables.js';
import { EPISODE_GROUP_ROLE, INTERNALS_OWNER_ROLE, templateDatabaseName } from './naming.js';
import { pristineStateSql } from './pristine-state.js';
import { lockDownTemplate, TEMPLATE_LOCKDOWN_VERSION } from './template-lockdown.js';
import { ident, insertRow, literal } from './sql.js';

export interface TemplateInfo {
  name: string;
  domainHash: string;
  catalog: DatabaseCatalog;
}

const domainHashes = new WeakMap<DomainDefinition, string>();

/**
 * Everything that goes into a template: when any of it changes, the template name (and so the template) changes.
 * Kept per pack object (every expected-state lookup asks): a pack is not changed once registered.
 */
export function domainContentHash(domain: DomainDefinition): string {
  let hash = domainHashes.get(domain);
  if (!hash) domainHashes.set(domain, (hash = hashDomainContent(domain)));
  return hash;
}

function hashDomainContent(domain: DomainDefinition): string {
  return contentHash({
    name: domain.name,
    version: domain.version,
    schemaSql: domain.schemaSql,
    sequences: domain.sequences,
    seed: domain.seed,
    internal: INTERNAL_SCHEMA_VERSION,
    lockdown: TEMPLATE_LOCKDOWN_VERSION,
  });
}

const SQLSTATE_DUPLICATE_OBJECT = '42710';
/** Two sessions creating the same role at once: the loser violates pg_authid's unique name index instead. */
const SQLSTATE_UNIQUE_VIOLATION = '23505';

/** The two shared NOLOGIN roles: the episode roles' group and the owner of the internal tables. */
export async function ensureGroupRole(admin: pg.ClientBase): Promise<void> {
  for (const role of [EPISODE_GROUP_ROLE, INTERNALS_OWNER_ROLE]) {
    const found = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if (found.rowCount) continue;
    try {
      await admin.query(`CREATE ROLE ${ident(role)} NOLOGIN`);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== SQLSTATE_DUPLICATE_OBJECT && code !== SQLSTATE_UNIQUE_VIOLATION) throw err;
    }
  }
  // a non-superuser admin must be a member of the owner role to hand the internal tables to it
  await admin.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user').then(async (res) => {
    if (!res.rows[0]?.rolsuper) await admin.query(`GRANT ${ident(INTERNALS_OWNER_ROLE)} TO CURRENT_USER`);
  });
}

async function readTemplateCatalog(admin: pg.ClientBase, name: string): Promise<DatabaseCatalog | undefined> {
  const res = await admin.query<{ comment: string | null }>(
    `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1 AND datistemplate`,
    [name],
  );
  const comment = res.rows[0]?.comment;
  return comment ? (JSON.parse(comment) as { catalog: DatabaseCatalog }).catalog : undefined;
}

function checkGrading(domain: DomainDefinition, catalog: DatabaseCatalog): void {
  const problems: string[] = [];
  for (const [table, info] of Object.entries(catalog)) {
    const policy = domain.grading[table];
    if (!policy) problems.push(`table ${table} has no grading policy`);
    else if (policy.primaryKey.join(',') !== info.primaryKey.join(',')) {
      problems.push(
        `grading.${table}.primaryKey is [${policy.primaryKey}] but the table's primary key is [${info.primaryKey}]`,
      );
    }
    for (const column of [...(policy?.ignoreColumns ?? []), ...Object.keys(policy?.canonicalize ?? {})]) {
      if (!(column in info.columns)) problems.push(`grading.${table} names unknown column ${column}`);
    }
  }
  for (const table of Object.keys(domain.grading))
    if (!catalog[table]) problems.push(`grading names table ${table}, which schemaSql does not create`);
  for (const table of Object.keys(domain.seed))
    if (!catalog[table]) problems.push(`seed names table ${table}, which schemaSql does not create`);
  if (problems.length)
    throw new UserError(`domain ${domain.name}: schema and grading policy disagree:\n  ${problems.join('\n  ')}`);
}

/**
 * What a pack's schema SQL may not leave in a template, because an episode database's reset (pristine-state.ts)
 * restores schema `public` only: rows in another schema, large objects, or default privileges of the episode group
 * would pass from one episode to the next. (The registry refuses a literal CREATE SCHEMA already; this catches the
 * rest, e.g. one made by dynamic SQL.)
 */
async function checkResettable(client: pg.ClientBase, domain: DomainDefinition): Promise<void> {
  const res = await client.query<{ schemas: string[] | null; large_objects: number; group_defaults: number }>(
    `SELECT (SELECT array_agg(nspname::text ORDER BY nspname) FROM pg_namespace
              WHERE nspname NOT IN ('public', 'pg_catalog', 'information_schema', 'pg_toast')
                AND nspname !~ '^pg_(toast_)?temp_') AS schemas,
            (SELECT count(*)::int FROM pg_largeobject_metadata) AS large_objects,
            (SELECT count(*)::int FROM pg_default_acl WHERE defaclrole = (SELECT oid FROM pg_roles WHERE rolname = $1)) AS group_defaults`,
    [EPISODE_GROUP_ROLE],
  );
  const { schemas, large_objects: largeObjects, group_defaults: groupDefaults } = res.rows[0]!;
  const problems: string[] = [];
  if (schemas?.length)
    problems.push(
      `it creates schema ${schemas.join(', ')}: an episode database is reset by restoring schema public only, so rows there would pass from one episode to the next; create every table in public (drop the CREATE SCHEMA and the ${schemas[0]}. qualifier)`,
    );
  if (largeObjects)
    problems.push(
      `it creates ${largeObjects} large object(s), which a reset removes: keep the data in a bytea column instead`,
    );
  if (groupDefaults)
    problems.push(
      `it sets default privileges FOR ROLE ${EPISODE_GROUP_ROLE}, which a reset removes: grant on the tables themselves`,
    );
  if (problems.length)
    throw new UserError(
      `domain ${domain.name}: schemaSql cannot be reset between episodes:\n  ${problems.join('\n  ')}`,
    );
}

async function buildInto(config: LoadedConfig, database: string, domain: DomainDefinition): Promise<DatabaseCatalog> {
  const client = new pg.Client(connectionConfig(config, database));
  await client.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query(domain.schemaSql);
    } catch (err) {
      throw new UserError(`domain ${domain.name}: schemaSql failed: ${(err as Error).message}`);
    }
    await checkResettable(client, domain);
    await client.query(INTERNAL_TABLES_SQL);
    const catalog = await readCatalog(client);
    checkGrading(domain, catalog);
    for (const [name, seq] of Object.entries(domain.sequences)) {
      await client.query('INSERT INTO _finalstate_sequences (name, prefix, next_value) VALUES ($1, $2, $3)', [
        name,
        seq.prefix,
        seq.start,
      ]);
    }
    for (const [table, rows] of Object.entries(domain.seed)) {
      for (const [i, row] of rows.entries()) {
        try {
          await insertRow(client, table, catalog[table]!, row);
        } catch (err) {
          throw new UserError(
            `domain ${domain.name}: seed.${table}[${i}] cannot be inserted: ${(err as Error).message}`,
          );
        }
      }
    }
    const group = ident(EPISODE_GROUP_ROLE);
    await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${group};
      GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${group};
      REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    await client.query(internalPrivilegesSql());
    await lockDownTemplate(client);
    await client.query(pristineStateSql());
    await client.query('COMMIT');
    await client.query('VACUUM (FREEZE, ANALYZE)');
    return catalog;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The domain's template database, built once per domain content hash: schema, internal tables, id sequences, seed
 * and grants, then marked as a template that nobody may connect to (a connection would block every copy). The
 * catalog is kept in the database comment, so a process that finds the template ready needs no connection to it.
 * A build goes into a scratch database that is renamed only when complete; an advisory lock keeps concurrent
 * builders apart.
 */
export async function ensureTemplate(
  config: LoadedConfig,
  admin: pg.ClientBase,
  domain: DomainDefinition,
): Promise<TemplateInfo> {
  const domainHash = domainContentHash(domain);
  const name = templateDatabaseName(domain.name, domainHash);
  const ready = await readTemplateCatalog(admin, name);
  if (ready) return { name, domainHash, catalog: ready };
  await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
  try {
    const built = await readTemplateCatalog(admin, name);
    if (built) return { name, domainHash, catalog: built };
    await ensureGroupRole(admin);
    const scratch = `${name}_build`;
    await admin.query(`DROP DATABASE IF EXISTS ${ident(scratch)} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    // closed to PUBLIC before anyone can connect: a connection opened in between would survive the REVOKE
    await admin.query(
      `CREATE DATABASE ${ident(scratch)} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' ALLOW_CONNECTIONS false`,
    );
    await admin.query(
      `REVOKE CONNECT, TEMPORARY ON DATABASE ${ident(scratch)} FROM PUBLIC; ALTER DATABASE ${ident(scratch)} ALLOW_CONNECTIONS true`,
    );
    let catalog: DatabaseCatalog;
    try {
      catalog = await buildInto(config, scratch, domain);
    } catch (err) {
      await admin.query(`DROP DATABASE IF EXISTS ${ident(scratch)} WITH (FORCE)`).catch(() => undefined);
      throw err;
    }
    await admin.query(`ALTER DATABASE ${ident(scratch)} RENAME TO ${ident(name)}`);
    await admin.query(`ALTER DATABASE ${ident(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    // the comment is the ready marker other processes look for, so it comes last
    await admin.query(
      `COMMENT ON DATABASE ${ident(name)} IS ${literal(JSON.stringify({ domain: domain.name, domainHash, catalog }))}`,
    );
    return { name, domainHash, catalog };
  } finally {
    await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
  }
}
