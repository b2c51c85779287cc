import OpenAI from 'openai';
import { InfrastructureError } from '../../core/errors.js';
import type { ChatEndpointConfig } from '../../schemas/clients.js';
import type { TokenUsage } from '../../schemas/runtime.js';
import { ContextLengthExceededError, EndpointRequestError, isContextLengthMessage } from './errors.js';

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type ChatTool = OpenAI.Chat.Completions.ChatCompletionTool;

/** The assistant message of a reply; `reasoning_content` is what vLLM-style and DeepSeek-style servers add. */
export type ChatReplyMessage = OpenAI.Chat.Completions.ChatCompletionMessage & { reasoning_content?: string | null };

export interface ChatReply {
  message: ChatReplyMessage;
  model: string;
  finishReason: string;
  usage: TokenUsage;
}

export interface ChatOptions {
  tools?: ChatTool[];
  temperature?: number;
  seed?: number;
  maxTokens?: number;
  /** Abandon the request when this fires (the episode's deadline); the rejection is the signal's reason. */
  signal?: AbortSignal;
}

/**
 * An OpenAI-compatible chat-completions endpoint (hosted models, the LLM user simulator, the judge). Errors follow
 * the policy client's rules: unreachable, timeouts, 429 and 5xx are InfrastructureError; other 4xx are
 * EndpointRequestError (ContextLengthExceededError for a prompt that does not fit).
 */
export class ChatClient {
  private readonly sdk: OpenAI;
  private readonly url: string;

  constructor(
    readonly config: ChatEndpointConfig,
    private readonly component: string,
  ) {
    const apiKey = config.apiKeyEnv ? process.env[config.apiKeyEnv] : undefined;
    if (config.apiKeyEnv && !apiKey)
      throw new EndpointRequestError(
        `${component}: environment variable ${config.apiKeyEnv} (apiKeyEnv) is not set`,
        config.baseUrl,
        null,
      );
    this.sdk = new OpenAI({
      baseURL: config.baseUrl,
      apiKey: apiKey ?? 'unused',
      timeout: config.timeoutMs,
      maxRetries: config.maxRetries,
    });
    this.url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatReply> {
    const temperature = options.temperature ?? this.config.temperature;
    const seed = options.seed ?? this.config.seed;
    const maxTokens = options.maxTokens ?? this.config.maxTokens;
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.sdk.chat.completions.create(
        {
          model: this.config.model,
          messages,
          ...(options.tools && options.tools.length > 0 ? { tools: options.tools } : {}),
          ...(temperature === undefined ? {} : { temperature }),
          ...(seed === undefined ? {} : { seed }),
          ...(maxTokens === undefined ? {} : { max_completion_tokens: maxTokens }),
        },
        options.signal ? { signal: options.signal } : {},
      );
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw this.classify(err);
    }
    const choice = completion.choices[0];
    if (!choice)
      throw new EndpointRequestError(`${this.component} at ${this.url} answered without choices`, this.url, 200);
    return {
      message: choice.message as ChatReplyMessage,
      model: completion.model,
      finishReason: choice.finish_reason,
      usage: {
        inputTokens: completion.usage?.prompt_tokens ?? 0,
        cachedInputTokens: completion.usage?.prompt_tokens_details?.cached_tokens ?? 0,
        outputTokens: completion.usage?.completion_tokens ?? 0,
      },
    };
  }

  private classify(err: unknown): Error {
    const where = `${this.component} at ${this.url}`;
    if (err instanceof OpenAI.APIConnectionTimeoutError)
      return new InfrastructureError(`${where} timed out after ${this.config.timeoutMs} ms`, this.component, {
        cause: err,
      });
    if (err instanceof OpenAI.APIConnectionError) {
      const cause = (err.cause as { cause?: { code?: string } } | undefined)?.cause?.code ?? err.message;
      return new InfrastructureError(`${where} unreachable (${cause})`, this.component, { cause: err });
    }
    if (err instanceof OpenAI.APIError && err.status !== undefined) {
      if (err.status === 429 || err.status >= 500)
        return new InfrastructureError(`${where} answered HTTP ${err.status}: ${err.message}`, this.component, {
          cause: err,
        });
      const ErrorClass =
        err.status === 400 && isContextLengthMessage(err.message) ? ContextLengthExceededError : EndpointRequestError;
      return new ErrorClass(`${where} refused the request (HTTP ${err.status}): ${err.message}`, this.url, err.status);
    }
    return err instanceof Error ? err : new Error(String(err));
  }
}
