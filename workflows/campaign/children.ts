import { log } from '@temporalio/workflow';
import { CampaignIdKey, SplitKey, StepKey } from '../search-attributes.js';
import type { CampaignRun } from './run.js';

/** A task set's last two path segments ("pools/rl-pool"): enough to recognise it in a one-line summary. */
export const shortPath = (p: string) =>
  p
    .replace(/^file:\/\//, '')
    .split('/')
    .filter(Boolean)
    .slice(-2)
    .join('/');

/** A child's search attributes and its line in the Temporal UI, with where its episodes are read. */
export function childOptions(run: CampaignRun, step: number, split: 'train' | 'eval', summary: string) {
  return {
    typedSearchAttributes: [
      { key: CampaignIdKey, value: run.id },
      { key: StepKey, value: step },
      { key: SplitKey, value: split },
    ],
    staticSummary: summary,
    staticDetails: `Campaign \`${run.id}\`. Episodes: \`finalstate episode list --campaign ${run.id} --step ${step}\`; one episode: \`finalstate episode show ID\`.`,
  };
}

/** Runs a child workflow, which the status query names while it runs. */
export async function runChild<T>(run: CampaignRun, workflowId: string, start: () => Promise<T>): Promise<T> {
  run.currentChild = workflowId;
  try {
    return await start();
  } finally {
    run.currentChild = null;
  }
}

/** Metrics to TensorBoard / W&B (Python, on the gpu worker); a tracker that fails costs a warning, never the campaign. */
export async function track(run: CampaignRun, step: number, scalars: Record<string, number>): Promise<void> {
  const tracking = run.config.tracking;
  if (!tracking || (tracking.tensorboard === false && !tracking.wandb)) return;
  try {
    const to = [
      ...(tracking.tensorboard !== false ? ['TensorBoard'] : []),
      ...(tracking.wandb ? [`W&B (${tracking.wandb.mode})`] : []),
    ].join(' + ');
    await run.tracker.logMetrics.executeWithOptions(
      { summary: `step ${step}: ${Object.keys(scalars).length} scalars to ${to}` },
      [{ campaignId: run.id, step, scalars, tracking }],
    );
  } catch (err) {
    log.warn('logMetrics failed; the campaign goes on without these metrics in the trackers', {
      step,
      error: (err as Error).message,
    });
  }
}
