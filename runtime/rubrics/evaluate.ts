import { UserError } from '../../core/errors.js';
import type { Conversation } from '../../schemas/conversation.js';
import type { RubricVerdict, TokenUsage } from '../../schemas/runtime.js';
import type { Rubric } from '../../schemas/task.js';
import { checkDeterministicRubric } from './deterministic.js';
import type { LlmJudge } from './judge.js';

export interface RubricOutcome {
  verdicts: RubricVerdict[];
  /** Judge tokens, all rubrics together. */
  judgeUsage: TokenUsage;
  judgeModel: string | null;
}

/** Check every rubric of a task on the final conversation; judge rubrics need a judge. */
export async function evaluateRubrics(
  rubrics: readonly Rubric[],
  conversation: Conversation,
  judge?: LlmJudge,
): Promise<RubricOutcome> {
  const outcome: RubricOutcome = {
    verdicts: [],
    judgeUsage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
    judgeModel: null,
  };
  for (const [index, rubric] of rubrics.entries()) {
    if (rubric.kind !== 'judge') {
      outcome.verdicts.push(checkDeterministicRubric(rubric, index, conversation));
      continue;
    }
    if (!judge)
      throw new UserError(
        `rubric ${index + 1} (${rubric.description || rubric.question}) needs an LLM judge, but no judge is configured`,
      );
    const judged = await judge.judge(rubric, index, conversation);
    outcome.verdicts.push(judged.verdict);
    outcome.judgeModel = judged.model;
    outcome.judgeUsage.inputTokens += judged.usage.inputTokens;
    outcome.judgeUsage.cachedInputTokens += judged.usage.cachedInputTokens;
    outcome.judgeUsage.outputTokens += judged.usage.outputTokens;
  }
  return outcome;
}
