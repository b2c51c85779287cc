/**
 * What the probes share: the attacker holds episode A's own credentials (as tool SQL running in A would) and opens
 * sessions of its own with them, outside the runtime's pool.
 */
import pg from 'pg';
import type { BackendOptions, Episode } from '../../environment/backend.js';
import { connectionConfig } from '../../environment/connection.js';
import type { LoadedConfig } from '../../schemas/config.js';
import { fixtureEnvironment, fixtureTask, uniqueEpisodeId } from '../environment/harness.js';
import type { ProbeResult } from './probe.js';

export type Env = ReturnType<typeof fixtureEnvironment>;

/** Two provisioned episodes of the fixture domain, A (the attacker) and B, torn down afterwards. */
export async function withEpisodes(
  label: string,
  fn: (env: Env, a: Episode, b: Episode) => Promise<ProbeResult[]>,
  options: BackendOptions = {},
  config?: LoadedConfig,
): Promise<ProbeResult[]> {
  const env = fixtureEnvironment(options, config);
  const task = fixtureTask('cancel-O-1');
  try {
    const a = await env.backend.provision(uniqueEpisodeId(`${label}-a`), task);
    const b = await env.backend.provision(uniqueEpisodeId(`${label}-b`), task);
    try {
      return await fn(env, a, b);
    } finally {
      await env.backend.teardown(a, { wait: true }).catch(() => undefined);
      await env.backend.teardown(b, { wait: true }).catch(() => undefined);
    }
  } finally {
    await env.close();
  }
}

export interface Login {
  user: string;
  password: string;
}

/** What the runtime's own pool logs in with. */
export const loginOf = (episode: Episode): Login => {
  const { user, password } = (episode.pool as unknown as { options: Login }).options;
  return { user, password };
};

export const message = (err: unknown) => (err as Error).message;

/** A session of its own, with none of the startup options the runtime's pool sends. */
export async function connectAs(
  config: LoadedConfig,
  database: string,
  login: Login,
): Promise<{ client?: pg.Client; error?: string }> {
  const client = new pg.Client({ ...connectionConfig(config, database), ...login, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return { client };
  } catch (err) {
    await client.end().catch(() => undefined);
    return { error: message(err) };
  }
}

/** One attempt that must be refused: held when `fn` throws; what it returned otherwise is the outcome. */
export async function refused(attempt: string, fn: () => Promise<string>): Promise<ProbeResult> {
  try {
    return { attempt, outcome: `allowed: ${await fn()}`, held: false };
  } catch (err) {
    return { attempt, outcome: `refused: ${message(err)}`, held: true };
  }
}

export async function connectRefused(
  config: LoadedConfig,
  attempt: string,
  database: string,
  login: Login,
): Promise<ProbeResult> {
  const got = await connectAs(config, database, login);
  if (got.error) return { attempt, outcome: `refused: ${got.error}`, held: true };
  await got.client!.end();
  return { attempt, outcome: `connected to ${database} as ${login.user}`, held: false };
}

/** Run `sql` as the episode's role on its own database, through a session of its own. */
export async function asEpisode<T extends pg.QueryResultRow>(
  config: LoadedConfig,
  episode: Episode,
  sql: string,
  params: unknown[] = [],
): Promise<pg.QueryResult<T>> {
  const got = await connectAs(config, episode.database, loginOf(episode));
  if (!got.client) throw new Error(got.error);
  try {
    return await got.client.query<T>(sql, params);
  } finally {
    await got.client.end();
  }
}
