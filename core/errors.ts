/** An error caused by what the user gave us (config, file, arguments): printed without a stack, exit code 2. */
export class UserError extends Error {
  override name = 'UserError';
}

/** A component we depend on is down or misbehaving: retryable, never a task outcome. */
export class InfrastructureError extends Error {
  override name = 'InfrastructureError';
  constructor(
    message: string,
    readonly component: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
