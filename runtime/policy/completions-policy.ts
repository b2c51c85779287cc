import type { Conversation } from '../../schemas/conversation.js';
import type { Trajectory } from '../../schemas/trajectory.js';
import type { PolicyClient } from '../clients/policy-client.js';
import { type ChatRenderer, controlTokenPattern, renderPromptParts } from '../interpreter/renderer.js';
import { TrajectoryBuilder } from '../trajectory/builder.js';
import type { PolicyState } from '../../schemas/checkpoint.js';
import { stateOfKind, type AgentPolicy, type AgentStep } from './agent-policy.js';

/**
 * The policy under training (and any model served by vLLM): our interpreter renders the prompt, the server samples
 * token ids, our interpreter parses them. The prompt of every turn is the trajectory itself, so the model is trained
 * on exactly the tokens it saw and produced.
 */
export class CompletionsAgentPolicy implements AgentPolicy {
  readonly interpretedBy = 'finalstate' as const;
  private readonly trajectory: TrajectoryBuilder;
  private readonly controlTokens: RegExp;
  private turnIndex = 0;

  constructor(
    private readonly client: PolicyClient,
    private readonly renderer: ChatRenderer,
    private readonly options: { seed?: number } = {},
  ) {
    this.trajectory = new TrajectoryBuilder(client);
    this.controlTokens = controlTokenPattern(renderer, client.config.controlTokens);
  }

  async next(conversation: Conversation, options: { signal?: AbortSignal } = {}): Promise<AgentStep> {
    const { signal } = options;
    const before = this.trajectory.state();
    let text: string;
    let completion;
    try {
      await this.trajectory.observe(renderPromptParts(this.renderer, conversation), this.controlTokens);
      signal?.throwIfAborted();
      const baseSeed = this.options.seed ?? this.client.config.sampling.seed;
      completion = await this.client.complete(
        {
          promptTokenIds: this.trajectory.tokens,
          ...(baseSeed === undefined ? {} : { seed: baseSeed + this.turnIndex }),
        },
        signal,
      );
      text = await this.client.detokenize(completion.tokenIds);
      signal?.throwIfAborted();
    } catch (err) {
      // a turn given up keeps nothing: the trajectory still ends where the conversation does
      if (signal?.aborted) this.trajectory.reset(before);
      throw err;
    }
    this.turnIndex++;
    this.trajectory.appendSample(completion, text);
    return {
      ...this.renderer.parseOutput(text, conversation.tools),
      model: completion.model,
      policyVersion: completion.policyVersion,
      finishReason: completion.finishReason,
      usage: completion.usage,
    };
  }

  finish(conversation: Conversation): Promise<Trajectory> {
    return this.trajectory.finish(this.renderer.renderConversation(conversation));
  }

  saveState(): PolicyState {
    return { kind: 'completions', turnIndex: this.turnIndex, trajectory: this.trajectory.state() };
  }

  /** The trajectory so far and the turn counter that seeds sampling, so turn n of a resumed attempt gets seed + n. */
  restoreState(state: PolicyState): void {
    const saved = stateOfKind(state, 'completions');
    this.trajectory.restore(saved.trajectory);
    this.turnIndex = saved.turnIndex;
  }
}
