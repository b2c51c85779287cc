import type { LoopState } from '../../schemas/checkpoint.js';
import type { Conversation } from '../../schemas/conversation.js';
import type { EpisodeLimits, FinishReason } from '../../schemas/episode.js';
import type { TokenUsage } from '../../schemas/runtime.js';
import { ContextLengthExceededError } from '../clients/errors.js';
import type { UserSimulator } from '../clients/user-simulator.js';
import { failureFeedback } from '../interpreter/feedback.js';
import { toolResultTurn } from '../interpreter/tool-result.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import type { ConversationRules } from './environment.js';
import type { ToolSession } from './tool-session.js';
import { visibleDialogue } from './visible-dialogue.js';

export interface LoopInput {
  system: string;
  /** The system text as separate messages, when the environment shows it so (Conversation.systemParts). */
  systemParts?: readonly string[];
  policy: AgentPolicy;
  tools: ToolSession;
  user: UserSimulator;
  limits: EpisodeLimits;
  /** Called after every agent turn is sampled (heartbeats). */
  onTurn?(turn: number): void;
  /**
   * Called after every turn is complete (its tool results or the user's reply appended) and before the next one
   * starts: the turn checkpoint. The state is live; serialise it before awaiting anything.
   */
  onTurnCompleted?(state: LoopState): Promise<void>;
  /** Continue from a checkpointed state instead of opening the conversation (a resumed attempt). */
  resume?: LoopState;
  /** Cancellation (the activity's): the policy and the user simulator give up, and the loop rejects. */
  signal?: AbortSignal;
  /** The environment's own ending rules and caps (ThinkingBox: `<DONE>`, end-turn tools, its turn limits). */
  rules?: ConversationRules;
}

export interface AgentTurnInfo {
  model: string;
  policyVersion: string;
  parseFailures: number;
}

export interface LoopResult {
  conversation: Conversation;
  finishReason: FinishReason;
  agentTurns: AgentTurnInfo[];
  userTurns: number;
  usage: { agent: TokenUsage; user: TokenUsage };
  userModel: string | null;
  timings: { agentMs: number; toolsMs: number; userMs: number };
}

const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
});

/**
 * One conversation: the user's query, then agent turns (tool calls executed through the episode's tool session,
 * malformed output fed back as a tool error), then visible text for the user, whose reply continues it, until someone
 * ends it or a limit is reached. Running out of a limit is a finish reason, never an error; infrastructure failures
 * (policy server, database, MCP transport) propagate as InfrastructureError for the caller to retry. With `resume`,
 * the conversation continues from a turn checkpoint (see checkpoint.ts) as if it had never been interrupted.
 *
 * The episode's clock (`limits.timeoutMs`, finish reason `timeout`) counts the agent's own time: its tool calls, from
 * the moment each is sent until its answer is back, and a call still running when the clock runs out is stopped
 * (nothing of it kept). Waiting for the policy server to sample a turn, for the user simulator's reply and for the
 * runtime's checkpoints is not on it: how long those take depends on the servers' load, not on the agent, and each
 * is bounded by its client's per-call timeout, past which it is an InfrastructureError (retried, never scored). A
 * policy that never stops still ends on its own side: every turn counts against `maxAgentTurns` and its tokens
 * against `maxTotalTokens` and `maxContextTokens`.
 */
export async function runAgentLoop(input: LoopInput): Promise<LoopResult> {
  const { policy, tools, user } = input;
  const limits = cappedLimits(input.limits, input.rules);
  const result: LoopResult = input.resume
    ? resumedResult(input.resume)
    : await openingResult(input.system, input.systemParts, tools, user);
  const { conversation } = result;
  /** The agent's clock so far (carried across resumed attempts by the checkpoint). */
  let clockMs = input.resume?.elapsedMs ?? 0;
  const finish = (reason: FinishReason) => {
    result.finishReason = reason;
    return result;
  };
  const signal = input.signal;
  let firstTurn = true;

  for (;;) {
    if (!firstTurn && input.onTurnCompleted) await input.onTurnCompleted(loopState(result, clockMs));
    firstTurn = false;
    signal?.throwIfAborted();
    if (clockMs >= limits.timeoutMs) return finish('timeout');
    if (agentMessages(result) >= limits.maxAgentTurns) return finish('max_turns');

    const agentStarted = performance.now();
    let step;
    try {
      step = await policy.next(conversation, signal ? { signal } : {});
    } catch (err) {
      if (err instanceof ContextLengthExceededError) return finish('context_overflow');
      throw err;
    } finally {
      result.timings.agentMs += performance.now() - agentStarted;
    }
    result.usage.agent = addUsage(result.usage.agent, step.usage);
    result.agentTurns.push({
      model: step.model,
      policyVersion: step.policyVersion,
      parseFailures: step.failures.length,
    });
    conversation.turns.push(step.turn);
    input.onTurn?.(result.agentTurns.length);
    if (step.usage.inputTokens + step.usage.outputTokens > limits.maxContextTokens) return finish('context_overflow');
    if (result.usage.agent.outputTokens + result.usage.user.outputTokens > limits.maxTotalTokens)
      return finish('max_tokens');

    if (step.failures.length > 0) {
      conversation.turns.push(failureFeedback(step.failures));
      continue;
    }
    if (step.calls.length > limits.maxToolCallsPerTurn) {
      result.agentTurns.at(-1)!.parseFailures++;
      const message = `${step.calls.length} tool calls in one message; at most ${limits.maxToolCallsPerTurn} are allowed per turn`;
      conversation.turns.push(failureFeedback([{ kind: 'too_many_calls', message }]));
      continue;
    }
    if (step.calls.length > 0) {
      const direct: string[] = [];
      for (const call of step.calls) {
        const budgetMs = limits.timeoutMs - clockMs;
        if (budgetMs <= 0) return finish('timeout');
        const toolStarted = performance.now();
        let answer;
        try {
          answer = await tools.callTool(call.tool, call.arguments, { budgetMs });
        } finally {
          const ms = performance.now() - toolStarted;
          result.timings.toolsMs += ms;
          clockMs += ms;
        }
        if (answer.budgetSpent) return finish('timeout');
        conversation.turns.push(toolResultTurn(answer, limits.maxToolResultChars));
        if (answer.endsConversation) return finish('agent_done');
        if (answer.directResponse !== undefined) direct.push(answer.directResponse);
      }
      // forwarded after all of the message's answers, as ThinkingBox's agent session does; the agent then goes on
      for (const text of direct)
        conversation.turns.push({ role: 'assistant', content: text, toolCalls: [], direct: true });
      continue;
    }
    if (step.finishReason === 'length') return finish('max_tokens');
    if (step.turn.content.trim() === '') return finish('agent_done');
    if (input.rules?.endsConversation?.(step.turn.content)) return finish('agent_done');

    if (result.userTurns >= limits.maxUserTurns) return finish('max_turns');
    const userStarted = performance.now();
    let reply;
    try {
      reply = await untilAborted(user.reply(visibleDialogue(conversation)), signal);
    } catch (err) {
      // the agent's dialogue outgrew what the user simulator can read: its verbosity, a model-side end
      if (err instanceof ContextLengthExceededError) return finish('context_overflow');
      throw err;
    } finally {
      result.timings.userMs += performance.now() - userStarted;
    }
    result.usage.user = addUsage(result.usage.user, reply.usage);
    result.userModel ??= reply.model;
    if (reply.done) return finish('user_done');
    result.userTurns++;
    conversation.turns.push({ role: 'user', content: reply.text });
  }
}

/** The agent's messages so far: its sampled turns and the direct responses forwarded in its name. */
function agentMessages(result: LoopResult): number {
  const direct = result.conversation.turns.filter((t) => t.role === 'assistant' && t.direct).length;
  return result.agentTurns.length + direct;
}

/** The episode's limits, lowered to the environment's own caps where it has them. */
function cappedLimits(limits: EpisodeLimits, rules: ConversationRules | undefined): EpisodeLimits {
  if (!rules) return limits;
  return {
    ...limits,
    ...(rules.maxAgentTurns !== undefined
      ? { maxAgentTurns: Math.min(limits.maxAgentTurns, rules.maxAgentTurns) }
      : {}),
    ...(rules.maxUserTurns !== undefined ? { maxUserTurns: Math.min(limits.maxUserTurns, rules.maxUserTurns) } : {}),
  };
}

/** The promise's outcome, or a rejection with the signal's reason as soon as it fires (the promise is then abandoned). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

async function openingResult(
  system: string,
  systemParts: readonly string[] | undefined,
  tools: ToolSession,
  user: UserSimulator,
): Promise<LoopResult> {
  const opening = user.opening();
  return {
    conversation: {
      system,
      ...(systemParts ? { systemParts: [...systemParts] } : {}),
      tools: await tools.listTools(),
      turns: [{ role: 'user', content: opening.text }],
    },
    finishReason: 'max_turns',
    agentTurns: [],
    userTurns: 1,
    usage: { agent: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 }, user: opening.usage },
    userModel: opening.model,
    timings: { agentMs: 0, toolsMs: 0, userMs: 0 },
  };
}

function resumedResult(state: LoopState): LoopResult {
  const { elapsedMs: _, ...rest } = structuredClone(state);
  return { ...rest, finishReason: 'max_turns' };
}

/** The loop's state between turns, as the turn checkpoint keeps it (`elapsedMs`: the agent's clock). */
function loopState(result: LoopResult, elapsedMs: number): LoopState {
  const { finishReason: _, ...rest } = result;
  return { ...rest, elapsedMs };
}
