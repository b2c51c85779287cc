import type { Conversation } from '../../schemas/conversation.js';
import type { RubricVerdict } from '../../schemas/runtime.js';
import type { Rubric } from '../../schemas/task.js';
import { checkTextRubric } from '../../environment/rubrics.js';
import { visibleDialogue } from '../episode/visible-dialogue.js';

/** The deterministic rubric kinds on the agent's visible text; the rules themselves live in environment/rubrics.ts. */
export function checkDeterministicRubric(
  rubric: Exclude<Rubric, { kind: 'judge' }>,
  index: number,
  conversation: Conversation,
): RubricVerdict {
  const agentMessages = visibleDialogue(conversation)
    .filter((m) => m.from === 'agent')
    .map((m) => m.text);
  return { rubric: index, kind: rubric.kind, ...checkTextRubric(rubric, agentMessages) };
}
