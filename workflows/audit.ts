import { setCurrentDetails } from '@temporalio/workflow';
import type { ChildProgress } from '../schemas/campaign.js';
import type { ResultRow } from '../schemas/results.js';
import type { EpisodeAttempt } from './episodes.js';

const KEEP = 8;

/** `text` as literal Markdown in the Temporal UI's details: its emphasis and code marks escaped. */
export const markdownText = (text: string) => text.replace(/([*_`])/g, '\\$1');

/**
 * What a child workflow shows in the Temporal UI's "current details": its progress and the latest failed episodes,
 * each as its outcome's summary line, so an operator sees what went wrong without opening every activity.
 */
export class EpisodeAuditTrail {
  private readonly failures: string[] = [];
  private passed = 0;
  private failed = 0;

  constructor(private readonly progress: ChildProgress) {}

  record(label: string, attempt: EpisodeAttempt): void {
    if (attempt.kind === 'outcome' && attempt.outcome.reward === 1) this.passed += 1;
    else {
      this.failed += 1;
      const line =
        attempt.kind === 'outcome'
          ? (attempt.outcome.summary ?? `${label} · reward 0 · ${attempt.outcome.finishReason}`)
          : `${label} · ${attempt.kind}: ${attempt.message}`;
      this.failures.push(line);
      if (this.failures.length > KEEP) this.failures.shift();
    }
    setCurrentDetails(this.details());
  }

  details(): string {
    const p = this.progress;
    const head = `**${p.done}/${p.planned} episodes done** (${p.inFlight} in flight) · ${this.passed} passed · ${this.failed} failed · ${p.infraFailed} infrastructure failures`;
    if (this.failures.length === 0) return head;
    return [
      head,
      '',
      `Latest failures (\`finalstate episode list --reward 0\`):`,
      ...this.failures.map((f) => `- ${markdownText(f)}`),
    ].join('\n');
  }
}

/** The summary of a storeResultRows activity: what the stored rows say, so the timeline shows results, not only calls. */
export function storedRowsSummary(
  rows: ReadonlyArray<{ row: Pick<ResultRow, 'reward' | 'error'> }>,
  context?: string,
): string {
  const infra = rows.filter((r) => r.row.error !== null).length;
  const passed = rows.filter((r) => r.row.error === null && r.row.reward === 1).length;
  const parts = [`${rows.length} rows`, `${passed} passed`, `${rows.length - passed - infra} failed`];
  if (infra) parts.push(`${infra} without outcome (infrastructure)`);
  return [...(context ? [context] : []), ...parts].join(' · ');
}
