import type { CampaignStatus, ChildProgress } from '../schemas/campaign.js';

/** A text progress bar: "[#######.............]  35/100". */
export function progressBar(done: number, total: number, width = 24): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(done).padStart(String(total).length)}/${total}`;
}

/** "3 min 20 s" style durations for estimates. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(Math.round(seconds % 60)).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.round((seconds % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * The time left at the rate so far: elapsed × (total − finished) / finished. "estimating" until something finished;
 * undefined when the start is unknown.
 */
export function timeLeft(
  finished: number,
  total: number,
  startedAt: number | undefined,
  now = Date.now(),
): string | undefined {
  if (startedAt === undefined) return undefined;
  if (finished >= total) return 'finishing';
  if (finished === 0) return 'estimating time left';
  const elapsed = Math.max(0, now - startedAt) / 1000;
  return `about ${duration((elapsed * (total - finished)) / finished)} left`;
}

const FINISHED_WORDS = { tasks: 'tasks resolved', episodes: 'episodes', groups: 'groups ready' } as const;

/** What the running child has finished out of its total (tasks resolved, episodes, groups), and the time left. */
export function childProgressText(c: ChildProgress, now = Date.now()): string {
  const infra = c.infraFailed ? `, ${c.infraFailed} lost to infrastructure (retried or refilled, never scored)` : '';
  if (c.unit === undefined || c.finished === undefined || c.total === undefined)
    return `${progressBar(c.done, c.planned)} episodes, ${c.inFlight} in flight${infra}`;
  const episodes =
    c.unit === 'episodes' ? `${c.inFlight} in flight` : `${c.done} episodes done, ${c.inFlight} in flight`;
  const left = timeLeft(c.finished, c.total, c.startedAt, now);
  return `${progressBar(c.finished, c.total)} ${FINISHED_WORDS[c.unit]}, ${episodes}${infra}${left ? ` · ${left}` : ''}`;
}

/** A re-probe's outcome in one line. */
export function poolVersionText(v: NonNullable<CampaignStatus['poolVersion']>): string {
  return v.left === 0
    ? `pool v${v.version} after step ${v.step}: unchanged`
    : `pool v${v.version} after step ${v.step}: ${v.left} tasks out (solved or hopeless), ${v.entered} in`;
}

/**
 * A failed step in words, as `campaign status` and the demo print it: its whole cause (core/failure-causes.ts, as
 * the campaign recorded it) and the command that re-runs it.
 */
export function failedStepText(campaignId: string, failed: NonNullable<CampaignStatus['failedStep']>): string {
  return `step ${failed.step} FAILED: ${failed.message}\n  re-run it with: finalstate campaign replay-step ${campaignId} ${failed.step}`;
}
