import type { ParseFailure, ToolTurn } from '../../schemas/conversation.js';
import { textPrefix } from './text-cut.js';

/** Problems listed in one feedback turn, and characters of each: output with thousands of problems gets a short answer. */
const FEEDBACK_PROBLEMS = 10;
const PROBLEM_CHARS = 300;

const cut = (message: string) => (message.length <= PROBLEM_CHARS ? message : `${textPrefix(message, PROBLEM_CHARS)}…`);

/**
 * The tool turn that tells the agent why its output was not executed. Malformed output is the agent's mistake, so
 * it is answered like a failing tool (the agent can correct itself), never raised as an infrastructure error.
 */
export function failureFeedback(failures: readonly ParseFailure[]): ToolTurn {
  const listed = failures.slice(0, FEEDBACK_PROBLEMS).map((failure) => `- ${cut(failure.message)}`);
  const more = failures.length - listed.length;
  if (more > 0) listed.push(`- … and ${more.toLocaleString('en-US')} more problems`);
  const problems = listed.join('\n');
  return {
    role: 'tool',
    content: `Error: your last message could not be executed, so no tool was called.\n${problems}\nCorrect the call(s) and try again.`,
  };
}
