import type { Conversation } from '../../schemas/conversation.js';
import type { RubricVerdict, TokenUsage } from '../../schemas/runtime.js';
import type { Rubric } from '../../schemas/task.js';
import { checkDeterministicRubric } from './deterministic.js';

type JudgeRubric = Extract<Rubric, { kind: 'judge' }>;

/** Decides judge rubrics (runtime/rubrics/judge.ts's LlmJudge over an OpenAI-compatible endpoint). */
export interface RubricJudge {
  judge(
    rubric: JudgeRubric,
    index: number,
    conversation: Conversation,
  ): Promise<{ verdict: RubricVerdict; usage: TokenUsage; model: string }>;
}

/** The verdicts of one rubric pass, with what the judge cost. */
export interface RubricVerdictSet {
  /** One per evaluated rubric, in the task's order; `verdict.rubric` is the index in the task's rubrics. */
  verdicts: RubricVerdict[];
  /** Indexes of the judge rubrics left unjudged: the episode ran without a judge. */
  unjudged: number[];
  /** Judge tokens, all rubrics together. */
  judgeUsage: TokenUsage;
  judgeModel: string | null;
}

/**
 * The one rubric pass of an episode, on its final conversation: deterministic rubrics always, judge rubrics when a
 * judge is given (otherwise listed as unjudged). A judge that cannot be reached throws its InfrastructureError.
 */
export async function evaluateRubrics(
  rubrics: readonly Rubric[],
  conversation: Conversation,
  judge?: RubricJudge,
): Promise<RubricVerdictSet> {
  const set: RubricVerdictSet = {
    verdicts: [],
    unjudged: [],
    judgeUsage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
    judgeModel: null,
  };
  for (const [index, rubric] of rubrics.entries()) {
    if (rubric.kind !== 'judge') {
      set.verdicts.push(checkDeterministicRubric(rubric, index, conversation));
      continue;
    }
    if (!judge) {
      set.unjudged.push(index);
      continue;
    }
    const judged = await judge.judge(rubric, index, conversation);
    set.verdicts.push(judged.verdict);
    set.judgeModel = judged.model;
    set.judgeUsage.inputTokens += judged.usage.inputTokens;
    set.judgeUsage.cachedInputTokens += judged.usage.cachedInputTokens;
    set.judgeUsage.outputTokens += judged.usage.outputTokens;
  }
  return set;
}
