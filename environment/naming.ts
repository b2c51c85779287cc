import { createHmac, randomBytes } from 'node:crypto';

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
/**
 * Prefix of the tables the environment keeps inside every episode database, next to the domain's tables
 * (`internal-tables.ts`): grading never sees them.
 */
export const INTERNAL_PREFIX = '_finalstate_';
/** NOLOGIN group role that owns the table privileges in every template; episode roles are its members. */
export const EPISODE_GROUP_ROLE = 'fs_episode_agents';
/** NOLOGIN role that owns the internal tables and the functions that write them; no episode role is its member. */
export const INTERNALS_OWNER_ROLE = 'fs_episode_internals';

/** An episode's database and its login role: the two names carry the same suffix (the janitor pairs them by it). */
export interface EpisodeNames {
  database: string;
  role: string;
}

/**
 * The names of an episode's database and role: an HMAC of the episode id under the stack's key (see
 * episode-credentials.ts), so that a retried attempt in any process that holds the key derives the same names, while
 * to anyone else (another episode role lists every database and role name in the cluster) they are random and say
 * nothing of the episode, its task or its campaign.
 */
export function episodeNames(key: Buffer, episodeId: string): EpisodeNames {
  const suffix = createHmac('sha256', key).update(`name\0${episodeId}`).digest('hex').slice(0, 24);
  return { database: `${EPISODE_DB_PREFIX}${suffix}`, role: `${EPISODE_ROLE_PREFIX}${suffix}` };
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
