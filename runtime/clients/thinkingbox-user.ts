import type { ThinkingBoxSidecar } from '../../environment/thinkingbox/sidecar.js';
import type { ChatEndpointConfig } from '../../schemas/clients.js';
import { SimulateUserResponse, type ThinkingBoxLlmEndpoint } from '../../schemas/thinkingbox.js';
import type { TokenUsage } from '../../schemas/runtime.js';
import { visibleAsThinkingBox } from '../episode/environments/thinkingbox-messages.js';
import type { VisibleMessage } from '../episode/visible-dialogue.js';
import { NO_USAGE, type UserReply, type UserSimulator } from './user-simulator.js';

/**
 * ThinkingBox's own user simulator (thinkingbox.common.user_simulated_answer.UserSimulator), run by the sidecar with
 * the campaign's user endpoint: it is given the task's user_context exactly as ThinkingBox's runner gives it, and
 * reads the visible dialogue. An endpoint that cannot be reached is an InfrastructureError (the sidecar says so).
 */
export class ThinkingBoxUserSimulator implements UserSimulator {
  constructor(
    private readonly sidecar: ThinkingBoxSidecar,
    private readonly endpoint: ChatEndpointConfig,
    private readonly query: string,
    private readonly userContext: string | null,
  ) {}

  opening(): UserReply {
    return { text: this.query, done: false, usage: NO_USAGE, model: null };
  }

  async reply(dialogue: readonly VisibleMessage[]): Promise<UserReply> {
    const answer = await this.sidecar.request(
      {
        op: 'simulate_user',
        userContext: this.userContext,
        messages: visibleAsThinkingBox(dialogue),
        endpoint: llmEndpointOf(this.endpoint),
        canEndConversation: false,
      },
      SimulateUserResponse,
    );
    const content = typeof answer.message.content === 'string' ? answer.message.content : '';
    return { text: content, done: answer.isDone, usage: usageOf(answer.usage), model: this.endpoint.model };
  }
}

/** A chat endpoint of the campaign as the sidecar's LLM sessions take it. */
export function llmEndpointOf(endpoint: ChatEndpointConfig, seed?: number): ThinkingBoxLlmEndpoint {
  const apiKey = endpoint.apiKeyEnv ? process.env[endpoint.apiKeyEnv] : undefined;
  const s = seed ?? endpoint.seed;
  return {
    baseUrl: endpoint.baseUrl,
    model: endpoint.model,
    ...(apiKey ? { apiKey } : {}),
    ...(s !== undefined ? { seed: s } : {}),
    ...(endpoint.temperature !== undefined ? { temperature: endpoint.temperature } : {}),
    ...(endpoint.maxTokens !== undefined ? { maxTokens: endpoint.maxTokens } : {}),
    ...(endpoint.timeoutMs !== undefined ? { timeoutSeconds: endpoint.timeoutMs / 1000 } : {}),
  };
}

function usageOf(usage: Record<string, unknown> | null | undefined): TokenUsage {
  const n = (k: string) => (typeof usage?.[k] === 'number' ? (usage[k] as number) : 0);
  return { inputTokens: n('prompt_tokens'), cachedInputTokens: 0, outputTokens: n('completion_tokens') };
}
