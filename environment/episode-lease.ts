import type pg from 'pg';
import type { Episode } from './episode.js';
import { episodeTransaction } from './episode-connections.js';

/**
 * Claim the episode for this handle's attempt (see internal-tables.ts): from now on only its lease token writes the
 * internal tables, and an older attempt's claim is refused.
 */
export async function claimLease(db: Pick<pg.Pool, 'query'>, episode: Episode): Promise<void> {
  await db.query('SELECT public._finalstate_claim($1, $2)', [episode.leaseToken, episode.attempt ?? null]);
}

/**
 * Hold the episode's lease while `fn` runs (its row locked FOR SHARE in a transaction on the episode database), so
 * that no other attempt claims the episode meanwhile: what `fn` writes elsewhere (the episode's record, its
 * trajectory) is written by the live attempt only. A stale attempt gets a StaleAttemptError and `fn` never runs.
 */
export async function underLease<T>(episode: Episode, fn: () => Promise<T>): Promise<T> {
  return episodeTransaction(episode, async (client) => {
    await client.query('SELECT public._finalstate_hold($1)', [episode.leaseToken]);
    return fn();
  });
}
