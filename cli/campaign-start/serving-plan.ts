import { randomUUID } from 'node:crypto';
import type { CampaignConfig } from '../../schemas/campaign.js';
import type { PolicyServerRef } from '../../schemas/clients.js';
import type { EpisodeLimits } from '../../schemas/episode.js';
import { CompletionResponse, TokenizeResponse } from '../../schemas/policy-api.js';
import { jsonOrUndefined, requestJson, requestText } from '../../runtime/clients/http.js';

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

/** Tokens per second one request gets from a rollout server: the prompt read (prefill) and each sampled token. */
export interface ServingSpeed {
  prefillTokensPerSecond: number;
  decodeTokensPerSecond: number;
}

/** A server under a fleet's load serves each request slower than when idle; the derived waits allow this much. */
export const LOAD_FACTOR = 4;
/** What an episode attempt needs beyond its turns: provisioning, grading and storing. */
const ATTEMPT_OVERHEAD_MS = 5 * 60_000;

/** The waits an episode of these limits needs at this speed. */
export interface EpisodeWaits {
  /** The longest policy call: a whole context read (a resumed attempt reads all of it again) and a whole turn sampled. */
  perCallMs: number;
  /** One attempt: every agent turn at the longest call, the agent's tool clock, the overhead. */
  attemptMs: number;
}

export function episodeWaits(
  limits: Pick<EpisodeLimits, 'maxContextTokens' | 'maxAgentTurns' | 'timeoutMs'>,
  maxTokens: number,
  speed: ServingSpeed,
): EpisodeWaits {
  const seconds = limits.maxContextTokens / speed.prefillTokensPerSecond + maxTokens / speed.decodeTokensPerSecond;
  const perCallMs = Math.ceil(LOAD_FACTOR * seconds * 1000);
  return { perCallMs, attemptMs: limits.maxAgentTurns * perCallMs + limits.timeoutMs + ATTEMPT_OVERHEAD_MS };
}

/** A duration of the campaign file ("30s", "15m", "2h") in milliseconds. */
export function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) throw new Error(`not a duration: ${text}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** The campaign's waits with the derived ones filled in, and the stated ones that are too short. */
export interface PlannedWaits {
  config: CampaignConfig;
  waits: EpisodeWaits;
  /** "key: from X to Y" for every wait derived. */
  derived: string[];
  problems: string[];
}

/**
 * Fills in the waits `raw` (the campaign file as written) does not state, from the token limits and `speed`, where
 * the default is shorter than needed; a stated wait shorter than needed is a problem naming its key.
 */
export function planWaits(config: CampaignConfig, raw: unknown, speed: ServingSpeed): PlannedWaits {
  const stated = (...keys: string[]) =>
    keys.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], raw) !== undefined;
  const client = config.policy.kind === 'served' ? config.policy.client : undefined;
  const waits = episodeWaits(config.limits, client?.sampling.maxTokens ?? 0, speed);
  const next = structuredClone(config);
  const derived: string[] = [];
  const problems: string[] = [];
  const check = (key: string, path: string[], current: number, needed: number, set: (ms: number) => void) => {
    if (current >= needed) return;
    if (stated(...path))
      problems.push(
        `${key} ${Math.round(current / 1000)} s is shorter than the ${Math.round(needed / 1000)} s the limits need at the servers' speed (limits.maxContextTokens, sampling.maxTokens and limits.maxAgentTurns, with ${LOAD_FACTOR}x for a loaded server): raise it, or leave it out to have it derived`,
      );
    else {
      set(needed);
      derived.push(`${key}: from ${Math.round(current / 1000)} s to ${Math.round(needed / 1000)} s`);
    }
  };
  if (next.policy.kind === 'served') {
    const served = next.policy.client;
    check('policy.client.timeoutMs', ['policy', 'client', 'timeoutMs'], served.timeoutMs, waits.perCallMs, (ms) => {
      served.timeoutMs = ms;
    });
  }
  const seconds = (ms: number) => `${Math.ceil(ms / 1000)}s`;
  // An episode heartbeats once per turn: a turn's longest call must fit between two heartbeats.
  const episodes = next.episodes;
  check(
    'episodes.heartbeatTimeout',
    ['episodes', 'heartbeatTimeout'],
    durationMs(episodes.heartbeatTimeout),
    waits.perCallMs,
    (ms) => (episodes.heartbeatTimeout = seconds(ms)),
  );
  check(
    'episodes.startToCloseTimeout',
    ['episodes', 'startToCloseTimeout'],
    durationMs(episodes.startToCloseTimeout),
    waits.attemptMs,
    (ms) => (episodes.startToCloseTimeout = seconds(ms)),
  );
  return { config: next, waits, derived, problems };
}

/**
 * One request's speed on `server`, measured with two greedy completions of the same prompt of `promptTokens`
 * tokens, each under a fresh cache salt (nothing read from the prefix cache), sampling past the end of text: one
 * token (the prefill), then `decodeTokens` more. A single request on an idle server: the derived waits multiply by
 * LOAD_FACTOR for a loaded one.
 */
export async function measureSpeed(
  server: PolicyServerRef,
  model: string,
  { promptTokens = 256, decodeTokens = 32, timeoutMs = 120_000 } = {},
): Promise<ServingSpeed> {
  const root = server.url.replace(/\/+$/, '');
  const options = { component: 'policy-server', timeoutMs };
  const sentence = 'The customer asked to change the delivery address of the order before it ships. ';
  const { tokens } = await requestJson(
    `${root}/tokenize`,
    { model, prompt: sentence.repeat(Math.ceil(promptTokens / 8)), add_special_tokens: false },
    TokenizeResponse,
    options,
  );
  const prompt = tokens.slice(0, promptTokens);
  const timed = async (maxTokens: number) => {
    const started = performance.now();
    const answer = await requestJson(
      `${root}/v1/completions`,
      { model, prompt, max_tokens: maxTokens, temperature: 0, ignore_eos: true, cache_salt: `speed-${randomUUID()}` },
      CompletionResponse,
      options,
    );
    return { seconds: (performance.now() - started) / 1000, tokens: answer.usage?.completion_tokens ?? maxTokens };
  };
  const prefill = await timed(1);
  const decode = await timed(decodeTokens + 1);
  return {
    prefillTokensPerSecond: prompt.length / prefill.seconds,
    decodeTokensPerSecond: Math.max(decode.tokens - 1, 1) / Math.max(decode.seconds - prefill.seconds, 1e-3),
  };
}
