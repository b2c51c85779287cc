import type pg from 'pg';
import { EPISODE_DB_PREFIX, EPISODE_ROLE_PREFIX, SPARE_DB_PREFIX } from './naming.js';
import { ident } from './sql.js';

export interface JanitorReport {
  droppedDatabases: string[];
  droppedRoles: string[];
}

/** When a database was made: from the marker comment provisioning writes, else from its files (superuser only). */
async function createdAt(admin: pg.Pool, row: { oid: number; comment: string | null }): Promise<Date | undefined> {
  try {
    const marker = row.comment ? (JSON.parse(row.comment) as { createdAt?: string }) : undefined;
    if (marker?.createdAt) return new Date(marker.createdAt);
  } catch {
    // not our marker: fall through to the file time
  }
  try {
    const res = await admin.query<{ modified: Date }>(
      `SELECT (pg_stat_file('base/' || $1::text || '/PG_VERSION')).modification AS modified`,
      [row.oid],
    );
    return res.rows[0]?.modified;
  } catch {
    return undefined;
  }
}

/**
 * Drop episode databases (and spare template copies) older than the TTL, then every episode role whose database is
 * gone. Only names with the environment's prefixes are ever touched; anything else on the server is left alone.
 */
export async function sweepLeakedEpisodes(
  admin: pg.Pool,
  options: { ttlMs: number; now?: Date },
): Promise<JanitorReport> {
  const now = options.now ?? new Date();
  const report: JanitorReport = { droppedDatabases: [], droppedRoles: [] };
  const dbs = await admin.query<{ oid: number; datname: string; comment: string | null }>(
    `SELECT oid, datname, shobj_description(oid, 'pg_database') AS comment FROM pg_database
     WHERE left(datname, length($1)) = $1 OR left(datname, length($2)) = $2 ORDER BY datname`,
    [EPISODE_DB_PREFIX, SPARE_DB_PREFIX],
  );
  for (const row of dbs.rows) {
    const created = await createdAt(admin, row);
    if (!created || now.getTime() - created.getTime() < options.ttlMs) continue;
    await admin.query(`DROP DATABASE IF EXISTS ${ident(row.datname)} WITH (FORCE)`);
    report.droppedDatabases.push(row.datname);
  }
  const orphans = await admin.query<{ rolname: string }>(
    `SELECT rolname FROM pg_roles r WHERE left(rolname, length($1)) = $1
     AND NOT EXISTS (SELECT 1 FROM pg_database d WHERE d.datname = $2 || substr(r.rolname, length($1) + 1)) ORDER BY rolname`,
    [EPISODE_ROLE_PREFIX, EPISODE_DB_PREFIX],
  );
  for (const { rolname } of orphans.rows) {
    await admin.query(`DROP ROLE IF EXISTS ${ident(rolname)}`);
    report.droppedRoles.push(rolname);
  }
  return report;
}
