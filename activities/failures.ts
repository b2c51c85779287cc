import { ApplicationFailure } from '@temporalio/activity';
import { FailureType } from '../core/failure-types.js';

export { FailureType };

const isNamed = (err: unknown, names: readonly string[]): err is Error =>
  err instanceof Error && names.includes(err.name);

/** User errors (by class name, so subclasses such as ConfigError count) end the activity without retries. */
export async function failFastOnUserError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isNamed(err, ['UserError', 'ConfigError', 'TaskSetError'])) {
      throw ApplicationFailure.create({
        type: FailureType.userError,
        message: err.message,
        nonRetryable: true,
        cause: err,
      });
    }
    throw err;
  }
}

export { isNamed };
