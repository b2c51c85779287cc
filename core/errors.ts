/** An error caused by what the user gave us (config, file, arguments): printed without a stack, exit code 2. */
export class UserError extends Error {
  override name = 'UserError';
}

/**
 * A component we depend on is down or misbehaving: retryable, never a task outcome. `status`: the HTTP status of the
 * answer that said so (429, 5xx), when there was one, for callers that tell answers apart.
 */
export class InfrastructureError extends Error {
  override name = 'InfrastructureError';
  readonly status?: number;
  constructor(
    message: string,
    readonly component: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options);
    if (options?.status !== undefined) this.status = options.status;
  }
}
