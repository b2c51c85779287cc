import type { Episode } from '../../environment/backend.js';
import { asInfrastructureError, isInfrastructureFault } from '../../environment/pg-faults.js';
import { TurnCheckpoint, type LoopState } from '../../schemas/checkpoint.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import type { ToolCallRecord } from './mcp-tool-session.js';

/**
 * Turn checkpoints of one episode, kept in the episode database itself (`_finalstate_checkpoint`, one row, replaced
 * after every completed turn) rather than in the artifact store: a checkpoint then lives and dies with exactly the
 * database state it describes. A retried attempt that reattaches finds it; a torn-down or rebuilt episode database
 * takes it along, so no stale checkpoint can outlive its state; and the tool calls it counts are recorded on the same
 * database, in the tools' own transactions. A turn whose tool calls committed but whose checkpoint did not is
 * re-sampled on resume, and its calls, carrying the same indexes, are answered from `_finalstate_tool_calls`.
 */
export class EpisodeCheckpoints {
  constructor(private readonly episode: Episode) {}

  async save(checkpoint: TurnCheckpoint): Promise<void> {
    const json = JSON.stringify(checkpoint);
    await this.query(
      'SELECT public._finalstate_save_checkpoint($1, $2, $3)',
      [this.episode.leaseToken, checkpoint.loop.agentTurns.length, json],
      'save turn checkpoint',
    );
  }

  /** The last checkpoint, or undefined when no turn was completed yet. */
  async load(): Promise<TurnCheckpoint | undefined> {
    const res = await this.query<{ checkpoint: unknown }>(
      'SELECT checkpoint FROM _finalstate_checkpoint',
      [],
      'read turn checkpoint',
    );
    const row = res.rows[0];
    if (!row) return undefined;
    const parsed = TurnCheckpoint.safeParse(row.checkpoint);
    if (!parsed.success)
      throw new Error(
        `episode ${this.episode.episodeId}: the turn checkpoint in ${this.episode.database} is unreadable: ${parsed.error.message}`,
      );
    if (parsed.data.episodeId !== this.episode.episodeId) {
      throw new Error(
        `episode ${this.episode.episodeId}: ${this.episode.database} holds the checkpoint of episode ${parsed.data.episodeId}`,
      );
    }
    return parsed.data;
  }

  private async query<R extends Record<string, unknown>>(sql: string, params: unknown[], what: string) {
    try {
      return await this.episode.pool.query<R>(sql, params);
    } catch (err) {
      if (isInfrastructureFault(err)) throw asInfrastructureError(err, `${what} of ${this.episode.database}`);
      throw err;
    }
  }
}

/**
 * The checkpoint after a completed turn: the loop's state, the policy's state, the tool calls answered so far and the
 * rollout servers that served the policy.
 */
export function turnCheckpoint(
  episodeId: string,
  loop: LoopState,
  policy: AgentPolicy,
  toolCalls: readonly ToolCallRecord[],
  resumedAt: readonly number[],
  servers: readonly string[] = [],
): TurnCheckpoint {
  return {
    episodeId,
    loop,
    policy: policy.saveState?.() ?? null,
    toolCalls: [...toolCalls],
    resumedAt: [...resumedAt],
    ...(servers.length > 0 ? { servers: [...servers] } : {}),
  };
}

/** Put a fresh policy where the checkpoint left its predecessor (before its first `next`). */
export function restorePolicy(policy: AgentPolicy, checkpoint: TurnCheckpoint): void {
  if (checkpoint.policy === null) return;
  if (!policy.restoreState)
    throw new Error(
      `the turn checkpoint holds a ${checkpoint.policy.kind} policy state, but the episode's policy cannot restore one`,
    );
  policy.restoreState(checkpoint.policy);
}
