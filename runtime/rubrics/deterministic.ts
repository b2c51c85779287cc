import type { Conversation } from '../../schemas/conversation.js';
import type { RubricVerdict } from '../../schemas/runtime.js';
import type { Rubric } from '../../schemas/task.js';
import { visibleDialogue } from '../episode/visible-dialogue.js';

/** Case-, accent-width- and whitespace-insensitive form used for text rubrics. */
export function normalizeForMatch(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * The deterministic rubric kinds, on the agent's visible text (reasoning and tool calls are not shown to the user):
 *  - must_not_reveal: fails if ANY visible agent message contains the text (a leak in any turn is a leak);
 *  - must_mention: passes if the FINAL visible agent message contains the text (the closing report must state it).
 */
export function checkDeterministicRubric(rubric: Exclude<Rubric, { kind: 'judge' }>, index: number, conversation: Conversation): RubricVerdict {
  const agentMessages = visibleDialogue(conversation).filter((m) => m.from === 'agent');
  const needle = normalizeForMatch(rubric.text);
  if (rubric.kind === 'must_not_reveal') {
    const leak = agentMessages.findIndex((m) => normalizeForMatch(m.text).includes(needle));
    return {
      rubric: index,
      kind: rubric.kind,
      passed: leak === -1,
      detail: leak === -1 ? `no agent message contains ${JSON.stringify(rubric.text)}` : `agent message ${leak + 1} reveals ${JSON.stringify(rubric.text)}`,
    };
  }
  const final = agentMessages.at(-1);
  const passed = final !== undefined && normalizeForMatch(final.text).includes(needle);
  return {
    rubric: index,
    kind: rubric.kind,
    passed,
    detail: final === undefined ? 'the agent never wrote a visible message' : `the final agent message ${passed ? 'mentions' : 'does not mention'} ${JSON.stringify(rubric.text)}`,
  };
}
