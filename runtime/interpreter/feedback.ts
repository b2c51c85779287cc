import type { ParseFailure, ToolTurn } from '../../schemas/conversation.js';

/**
 * The tool turn that tells the agent why its output was not executed. Malformed output is the agent's mistake, so
 * it is answered like a failing tool (the agent can correct itself), never raised as an infrastructure error.
 */
export function failureFeedback(failures: readonly ParseFailure[]): ToolTurn {
  const problems = failures.map((failure) => `- ${failure.message}`).join('\n');
  return {
    role: 'tool',
    content: `Error: your last message could not be executed, so no tool was called.\n${problems}\nCorrect the call(s) and try again.`,
  };
}
