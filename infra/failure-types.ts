/**
 * Failure types (ApplicationFailure.type) that activities raise and workflows tell apart. Plain constants, so the
 * workflow bundle can import them without the activity SDK.
 */
export const FailureType = {
  /** A component was down: retried by the activity's retry policy, then the group is refilled. Never a task outcome. */
  infrastructure: 'Infrastructure',
  /** The task itself is unusable: not retried. */
  malformedTask: 'MalformedTask',
  /** Bad input from the user (config, task set, file): not retried. */
  userError: 'UserError',
  /** A GRPO step ran out of replacement rounds before it had enough informative groups. */
  shortOfInformativeGroups: 'ShortOfInformativeGroups',
  /** No episode of a step had a trainable trajectory. */
  unusableBatch: 'UnusableBatch',
} as const;
