import type { LoopState } from '../../schemas/checkpoint.js';
import type { Conversation } from '../../schemas/conversation.js';
import type { EpisodeLimits, FinishReason } from '../../schemas/episode.js';
import type { TokenUsage } from '../../schemas/runtime.js';
import { ContextLengthExceededError } from '../clients/errors.js';
import type { UserSimulator } from '../clients/user-simulator.js';
import { failureFeedback } from '../interpreter/feedback.js';
import { toolResultTurn } from '../interpreter/tool-result.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import type { ToolSession } from './tool-session.js';
import { visibleDialogue } from './visible-dialogue.js';

export interface LoopInput {
  system: string;
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
  signal?: AbortSignal;
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
 */
export async function runAgentLoop(input: LoopInput): Promise<LoopResult> {
  const { policy, tools, user, limits } = input;
  const result: LoopResult = input.resume
    ? resumedResult(input.resume)
    : await openingResult(input.system, tools, user);
  const { conversation } = result;
  const started = performance.now() - (input.resume?.elapsedMs ?? 0);
  const finish = (reason: FinishReason) => {
    result.finishReason = reason;
    return result;
  };
  // The wall clock also stops a turn in flight: the policy is told to give up and the user simulator is abandoned at
  // the deadline. A tool call already running is let finish (its transaction is atomic and must settle before
  // grading reads the state); the calls after it in the same message do not start.
  const deadline = AbortSignal.timeout(Math.max(0, Math.ceil(limits.timeoutMs - (performance.now() - started))));
  const signal = input.signal ? AbortSignal.any([input.signal, deadline]) : deadline;
  let firstTurn = true;

  for (;;) {
    if (!firstTurn && input.onTurnCompleted)
      await input.onTurnCompleted(loopState(result, performance.now() - started));
    firstTurn = false;
    input.signal?.throwIfAborted();
    if (deadline.aborted || performance.now() - started > limits.timeoutMs) return finish('timeout');
    if (result.agentTurns.length >= limits.maxAgentTurns) return finish('max_turns');

    const agentStarted = performance.now();
    let step;
    try {
      step = await policy.next(conversation, { signal });
    } catch (err) {
      if (err instanceof ContextLengthExceededError) return finish('context_overflow');
      if (deadline.aborted && !input.signal?.aborted) return finish('timeout');
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
      const toolsStarted = performance.now();
      for (const call of step.calls) {
        if (deadline.aborted) return finish('timeout');
        conversation.turns.push(
          toolResultTurn(await tools.callTool(call.tool, call.arguments), limits.maxToolResultChars),
        );
      }
      result.timings.toolsMs += performance.now() - toolsStarted;
      continue;
    }
    if (step.finishReason === 'length') return finish('max_tokens');
    if (step.turn.content.trim() === '') return finish('agent_done');

    if (result.userTurns >= limits.maxUserTurns) return finish('max_turns');
    const userStarted = performance.now();
    const reply = await untilAborted(user.reply(visibleDialogue(conversation)), deadline);
    result.timings.userMs += performance.now() - userStarted;
    if (reply === ABORTED) return finish('timeout');
    result.usage.user = addUsage(result.usage.user, reply.usage);
    result.userModel ??= reply.model;
    if (reply.done) return finish('user_done');
    result.userTurns++;
    conversation.turns.push({ role: 'user', content: reply.text });
  }
}

const ABORTED = Symbol('aborted');

/** The promise's outcome, or ABORTED as soon as `signal` fires (the promise is then abandoned). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      resolve(ABORTED);
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

async function openingResult(system: string, tools: ToolSession, user: UserSimulator): Promise<LoopResult> {
  const opening = user.opening();
  return {
    conversation: { system, tools: await tools.listTools(), turns: [{ role: 'user', content: opening.text }] },
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

/** The loop's state between turns, as the turn checkpoint keeps it. */
function loopState(result: LoopResult, elapsedMs: number): LoopState {
  const { finishReason: _, ...rest } = result;
  return { ...rest, elapsedMs };
}
