import type { z } from 'zod';
import { InfrastructureError } from '../../core/errors.js';
import { ContextLengthExceededError, EndpointRequestError, isContextLengthMessage } from './errors.js';

export interface JsonRequest {
  /** Component named in InfrastructureError (e.g. "policy-server"). */
  component: string;
  timeoutMs: number;
  headers?: Record<string, string>;
  /** Abandon the request when this fires (the episode's deadline); the rejection is the signal's reason. */
  signal?: AbortSignal;
}

function causeText(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown; detail?: unknown };
    const inner = parsed.error as { message?: unknown } | string | undefined;
    const message = typeof inner === 'object' && inner ? inner.message : (inner ?? parsed.message ?? parsed.detail);
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: use the text itself
  }
  return body.slice(0, 500);
}

/**
 * POST (or GET without a body) JSON and return the answer's text, which may be empty (vLLM's admin routes answer 200
 * with no body). Connection refused, timeouts, 429 and 5xx are InfrastructureError (retryable, naming the URL); other
 * 4xx are EndpointRequestError; a context-length refusal is ContextLengthExceededError.
 */
export async function requestText(url: string, body: unknown, options: JsonRequest): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal
        ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal])
        : AbortSignal.timeout(options.timeoutMs),
    });
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason;
    const reason =
      (err as Error).name === 'TimeoutError'
        ? `timed out after ${options.timeoutMs} ms`
        : `unreachable (${causeText(err)})`;
    throw new InfrastructureError(`${options.component} at ${url} ${reason}`, options.component, { cause: err });
  }
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    throw new InfrastructureError(
      `${options.component} at ${url}: connection lost while reading the answer (${causeText(err)})`,
      options.component,
      { cause: err },
    );
  }
  if (response.status === 429 || response.status >= 500) {
    throw new InfrastructureError(
      `${options.component} at ${url} answered HTTP ${response.status}: ${errorMessage(text)}`,
      options.component,
      { status: response.status },
    );
  }
  if (response.status >= 400) {
    const message = errorMessage(text);
    const ErrorClass =
      response.status === 400 && isContextLengthMessage(message) ? ContextLengthExceededError : EndpointRequestError;
    throw new ErrorClass(
      `${options.component} at ${url} refused the request (HTTP ${response.status}): ${message}`,
      url,
      response.status,
    );
  }
  return text;
}

/** requestText, then the answer parsed as JSON and validated against `schema`. */
export async function requestJson<T extends z.ZodType>(
  url: string,
  body: unknown,
  schema: T,
  options: JsonRequest,
): Promise<z.infer<T>> {
  const text = await requestText(url, body, options);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new EndpointRequestError(
      `${options.component} at ${url} did not answer JSON: ${text.slice(0, 200)}`,
      url,
      200,
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new EndpointRequestError(
      `${options.component} at ${url} answered in an unexpected shape: ${issues}`,
      url,
      200,
    );
  }
  return parsed.data;
}

/** `text` parsed as JSON, or undefined when it is not JSON (answers whose status alone may count). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
