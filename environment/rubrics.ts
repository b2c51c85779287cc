import type { z } from 'zod';
import type { RubricOutcome } from '../schemas/grading.js';
import type { Rubric } from '../schemas/task.js';

const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * Deterministic rubrics on the final visible assistant text. Without that text they are `skipped` (they cannot
 * fail); judge rubrics are always `needs_judge`: the runtime's LLM judge decides them, never this function.
 */
export function evaluateRubrics(rubrics: Rubric[], finalText: string | undefined): z.infer<typeof RubricOutcome>[] {
  return rubrics.map((rubric) => {
    if (rubric.kind === 'judge') return { kind: rubric.kind, description: rubric.description, status: 'needs_judge' as const };
    if (finalText === undefined) return { kind: rubric.kind, description: rubric.description, status: 'skipped' as const };
    const present = normalise(finalText).includes(normalise(rubric.text));
    const pass = rubric.kind === 'must_mention' ? present : !present;
    return { kind: rubric.kind, description: rubric.description, status: pass ? ('passed' as const) : ('failed' as const) };
  });
}
