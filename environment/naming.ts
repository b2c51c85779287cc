import { randomBytes } from 'node:crypto';
import { sha256Hex } from './canonical.js';

/** PostgreSQL truncates identifiers at 63 bytes; our names stay well under. */
const SLUG_CHARS = 30;

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, SLUG_CHARS);
}

/** Prefixes that the janitor recognises: only names with these prefixes are ever dropped by it. */
export const EPISODE_DB_PREFIX = 'fs_ep_';
export const EPISODE_ROLE_PREFIX = 'fs_er_';
export const TEMPLATE_DB_PREFIX = 'fs_tpl_';
export const SPARE_DB_PREFIX = 'fs_sp_';
/** NOLOGIN group role that owns the table privileges in every template; episode roles are its members. */
export const EPISODE_GROUP_ROLE = 'fs_episode_agents';
/** NOLOGIN role that owns the internal tables and the functions that write them; no episode role is its member. */
export const INTERNALS_OWNER_ROLE = 'fs_episode_internals';

/**
 * Deterministic, sanitised name of an episode's database: a readable slug of the id plus a hash of the exact id, so
 * two ids that slug alike never collide and a retried attempt derives the same name.
 */
export function episodeDatabaseName(episodeId: string): string {
  return `${EPISODE_DB_PREFIX}${slug(episodeId)}_${sha256Hex(episodeId).slice(0, 12)}`;
}

export function episodeRoleName(episodeId: string): string {
  return `${EPISODE_ROLE_PREFIX}${slug(episodeId)}_${sha256Hex(episodeId).slice(0, 12)}`;
}

/**
 * The name an episode role takes when its episode is torn down, so that the episode's own role name is free for a
 * newer attempt at once. The janitor drops it like any episode role without its database.
 */
export function retiredRoleName(): string {
  return `${EPISODE_ROLE_PREFIX}retired_${randomBytes(8).toString('hex')}`;
}

export function templateDatabaseName(domain: string, domainHash: string): string {
  return `${TEMPLATE_DB_PREFIX}${slug(domain)}_${domainHash.slice(0, 16)}`;
}
