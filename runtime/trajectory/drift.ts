import type { TrajectoryDrift, TrajectorySegment } from '../../schemas/trajectory.js';

const CONTEXT = 40;

/**
 * The first place where `actual` differs from `expected`, with text around it; null when they are equal. Texts that
 * differ only in Unicode normalisation are equal: a tokenizer that normalises (Qwen's: NFC) turns decomposed text in
 * an observation into the tokens of its composed form, which is what the model reads from the template's rendering
 * too, so the tokens still spell the conversation.
 */
export function findDrift(
  expected: string,
  actual: string,
  segments: readonly TrajectorySegment[],
): TrajectoryDrift | null {
  if (expected === actual || expected.normalize('NFC') === actual.normalize('NFC')) return null;
  let index = 0;
  const shorter = Math.min(expected.length, actual.length);
  while (index < shorter && expected.charCodeAt(index) === actual.charCodeAt(index)) index++;
  const around = (text: string) => text.slice(Math.max(0, index - CONTEXT), index + CONTEXT);
  const segment = segments.findIndex((s) => index >= s.textStart && index < s.textEnd);
  return { index, segment: segment === -1 ? null : segment, expected: around(expected), actual: around(actual) };
}
