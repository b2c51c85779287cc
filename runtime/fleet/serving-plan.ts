import type { PolicyServerRef } from '../../schemas/clients.js';
import { jsonOrUndefined, requestText } from '../clients/http.js';

/** A rollout server's context length, as its /v1/models reports it (vLLM and the project's server both do). */
export async function maxModelLength(server: PolicyServerRef, timeoutMs = 10_000): Promise<number | undefined> {
  const models = jsonOrUndefined(
    await requestText(`${server.url.replace(/\/+$/, '')}/v1/models`, undefined, {
      component: 'policy-server',
      timeoutMs,
    }),
  ) as { data?: Array<{ max_model_len?: unknown }> } | undefined;
  const length = models?.data?.[0]?.max_model_len;
  return typeof length === 'number' ? length : undefined;
}

/**
 * What `finalstate campaign start` refuses before anything runs: a server whose context (max_model_len) is shorter
 * than the campaign's limits.maxContextTokens would cut every long episode short as a context overflow, a task
 * outcome scored 0, never an error. A server that does not answer is left to the campaign's fleet.
 */
export async function serversShorterThan(
  servers: readonly PolicyServerRef[],
  maxContextTokens: number,
): Promise<string[]> {
  const problems: string[] = [];
  for (const server of servers) {
    const length = await maxModelLength(server).catch(() => undefined);
    if (length !== undefined && length < maxContextTokens)
      problems.push(
        `policy server ${server.url} holds ${length} tokens of context (max_model_len), below limits.maxContextTokens ${maxContextTokens}: lower limits.maxContextTokens to ${length} or start the server with --max-model-len ${maxContextTokens} or more`,
      );
  }
  return problems;
}
