/**
 * A failure in words, whole: the innermost cause and every wrapper that adds to it. Temporal wraps what an activity
 * threw as ApplicationFailure, inside an ActivityFailure ("Activity task failed"), inside a ChildWorkflowFailure
 * ("Child Workflow execution failed"), inside the client's WorkflowFailedError ("Workflow execution failed"); each
 * of these says only that something below failed. This walks the `.cause` chain, names each wrapper by what it adds
 * (the activity, how its retries ended, the child workflow, a timeout's kind) and keeps each message once: a wrapper
 * whose message already holds its cause's says it for both. Pure and deterministic, so workflow code uses it too
 * (recordFailedStep), as do the CLI and the report: one text for a failure wherever it is shown.
 *
 * The failure classes are told apart by the fields Temporal's classes carry, not by instanceof, so that the workflow
 * sandbox, the client and the activity SDK (each may hold its own copy of @temporalio/common) all agree, and so that
 * this module needs no Temporal package.
 */

/** Temporal's wrappers whose messages say nothing their place in the chain does not. */
const EMPTY_MESSAGES = new Set([
  'Activity task failed',
  'Child Workflow execution failed',
  'Workflow execution failed',
  'Workflow failed',
]);

/** ApplicationFailure types that name no kind of failure: a plain Error thrown and converted. */
const GENERIC_TYPES = new Set(['Error', 'ApplicationFailure', '']);

/** How an activity's or child's retries ended (Temporal's RetryState), in words; absent when it says nothing. */
const RETRY_STATES: Record<string, string> = {
  NON_RETRYABLE_FAILURE: 'not retried',
  MAXIMUM_ATTEMPTS_REACHED: 'retries exhausted',
  TIMEOUT: 'out of time for retries',
  CANCEL_REQUESTED: 'cancelled',
};

interface FailureLike {
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  type?: unknown;
  activityType?: unknown;
  workflowType?: unknown;
  execution?: { workflowId?: unknown } | null;
  retryState?: unknown;
  timeoutType?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** What a wrapper adds by its place in the chain (the activity, the child, the timeout), or '' for none. */
function placeOf(f: FailureLike): string {
  const retries = RETRY_STATES[text(f.retryState)];
  const how = retries ? ` (${retries})` : '';
  if (f.name === 'ActivityFailure' || text(f.activityType)) return `activity ${text(f.activityType) || '?'}${how}`;
  if (f.name === 'ChildWorkflowFailure' || text(f.workflowType)) {
    const id = text(f.execution?.workflowId);
    return `workflow ${text(f.workflowType) || '?'}${id ? ` ${id}` : ''}${how}`;
  }
  if (f.name === 'TimeoutFailure' || text(f.timeoutType))
    return `timed out${text(f.timeoutType) ? ` (${text(f.timeoutType)})` : ''}`;
  return '';
}

/** A failure's own message with its kind when the kind says something (an ApplicationFailure's type, an error's name). */
function ownMessage(f: FailureLike): string {
  const message = text(f.message).trim();
  if (EMPTY_MESSAGES.has(message) || (placeOf(f) !== '' && /^(Activity|Child Workflow|Workflow)\b/.test(message)))
    return '';
  // Temporal's own classes are named by their place; an ApplicationFailure by its type; any other error by its name.
  const kind = f.name === 'ApplicationFailure' ? text(f.type) : /Failure$/.test(text(f.name)) ? '' : text(f.name);
  const named = kind && !GENERIC_TYPES.has(kind) && !message.includes(`${kind}: `);
  return named ? (message ? `${kind}: ${message}` : kind) : message;
}

/**
 * The parts of a failure, outermost first: each wrapper's place that adds information and each message that says
 * something not already said by the parts before it. An error that is not an Error is its string.
 */
export function failureParts(err: unknown): string[] {
  const parts: string[] = [];
  const said: string[] = [];
  const seen = new Set<unknown>();
  for (let f = err as FailureLike | undefined; f !== undefined && f !== null && !seen.has(f);) {
    seen.add(f);
    if (typeof f !== 'object') {
      parts.push(String(f));
      break;
    }
    // A part an outer message already holds (a wrapper that quotes its cause) is not said twice.
    const place = placeOf(f);
    if (place && !said.some((s) => s.includes(place))) parts.push(place);
    const message = ownMessage(f);
    const bare = text(f.message).trim();
    if (message && !said.some((s) => s.includes(bare || message))) {
      parts.push(message);
      said.push(message);
    }
    f = f.cause as FailureLike | undefined;
  }
  return parts.length > 0 ? parts : [String(err)];
}

/** The failure in one line: its parts (failureParts) joined by ": ". */
export function describeFailure(err: unknown): string {
  return failureParts(err).join(': ');
}
