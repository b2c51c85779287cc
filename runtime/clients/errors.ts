import { UserError } from '../../core/errors.js';

/**
 * An endpoint refused a request (HTTP 4xx other than 429) or answered in a shape we cannot read: a configuration
 * mistake (wrong model name, key, URL or server kind), so retrying does not help.
 */
export class EndpointRequestError extends UserError {
  override name = 'EndpointRequestError';
  constructor(
    message: string,
    readonly url: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** The prompt plus the requested tokens do not fit the model's context: a task outcome (`context_overflow`). */
export class ContextLengthExceededError extends EndpointRequestError {
  override name = 'ContextLengthExceededError';
}

const CONTEXT_LENGTH = /maximum context length|context length is|too many tokens|prompt is too long/i;

/** Whether a 400 answer says the prompt does not fit the context (vLLM's and OpenAI's wording). */
export function isContextLengthMessage(message: string): boolean {
  return CONTEXT_LENGTH.test(message);
}
