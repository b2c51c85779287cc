import type { Client } from '@temporalio/client';
import type { LoadedConfig } from '../../schemas/config.js';
import { workflowUrl } from '../../infra/stack/temporal.js';
import type { CampaignPhase, CampaignStatus, ChildProgress } from '../../schemas/campaign.js';
import { campaignStatus } from '../commands/campaign.js';
import { childProgressText, poolVersionText } from '../progress.js';

type Status = CampaignStatus & { child: ChildProgress | null };

/** The phases a newcomer sees, in order; `train` and the evaluations repeat per step. */
export function phaseLabel(s: Pick<Status, 'phase' | 'step' | 'maxSteps'>): string {
  switch (s.phase) {
    case 'probe':
      return 'probe';
    case 'select':
      return 'select';
    case 'base-eval':
      return 'evaluate base policy';
    case 'train':
      return `train step ${Math.min(s.step + 1, s.maxSteps)}/${s.maxSteps}`;
    case 'eval':
      return `evaluate after step ${s.step}`;
    case 'reprobe':
      return `re-probe after step ${s.step}`;
    default:
      return s.phase;
  }
}

export function statusLine(s: Status): string {
  const child = s.child ? childProgressText(s.child) : '';
  const pool = s.poolSize !== null ? `  pool ${s.poolSize}${s.poolVersion ? ` v${s.poolVersion.version}` : ''}` : '';
  return `${phaseLabel(s).padEnd(22)} ${child}${pool}  (${s.episodes.done + (s.child?.done ?? 0)} episodes so far)`;
}

export interface PhaseTime {
  phase: string;
  seconds: number;
}

/**
 * Polls the campaign's status query until it is done, stopped or a step failed: one status line per phase (redrawn in
 * place on a terminal), the Temporal UI link of every child workflow, and the wall time of each phase seen.
 */
export async function watchCampaign(
  client: Client,
  config: LoadedConfig,
  campaignId: string,
  options: { log: (line: string) => void; isTty: boolean; intervalMs?: number; signal?: AbortSignal },
): Promise<{ final: Status | null; phases: PhaseTime[] }> {
  const { log, isTty } = options;
  const phases: PhaseTime[] = [];
  let current = null as { label: string; started: number } | null;
  let lastChild: string | null = null;
  // Freezing the pool takes less than a poll, so the select phase is reported by its result.
  let poolSeen = false;
  let poolVersionSeen = 0;
  let lastPrinted = 0;
  let redrawn = false;
  const endLine = () => {
    if (redrawn) process.stdout.write('\n');
    redrawn = false;
  };
  for (;;) {
    if (options.signal?.aborted) return { final: null, phases };
    let s: Status;
    try {
      s = await campaignStatus(client, campaignId);
    } catch (err) {
      // A query times out when the control worker is starved of CPU (a loaded machine, a model on the same cores):
      // the campaign goes on; ask again at the next poll.
      if (!/DEADLINE_EXCEEDED|timed out/i.test(`${(err as Error).message} ${String((err as Error).cause ?? '')}`))
        throw err;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1000));
      continue;
    }
    const label = phaseLabel(s);
    const terminal: CampaignPhase[] = ['done', 'stopped', 'step-failed'];
    if (current?.label !== label) {
      if (current) {
        endLine();
        const seconds = (Date.now() - current.started) / 1000;
        phases.push({ phase: current.label, seconds });
        log(`  ${current.label}: done in ${seconds.toFixed(0)} s`);
      }
      current = terminal.includes(s.phase) ? null : { label, started: Date.now() };
    }
    if (s.poolSize !== null && !poolSeen) {
      endLine();
      log(`select: pool of ${s.poolSize} tasks frozen`);
      poolSeen = true;
    }
    if (s.poolVersion && s.poolVersion.version > poolVersionSeen) {
      endLine();
      log(`  ${poolVersionText(s.poolVersion)}`);
      poolVersionSeen = s.poolVersion.version;
    }
    if (terminal.includes(s.phase)) {
      endLine();
      return { final: s, phases };
    }
    if (s.currentChild && s.currentChild !== lastChild) {
      endLine();
      log(`${label}: ${workflowUrl(config, s.currentChild)}`);
      lastChild = s.currentChild;
    }
    const line = statusLine(s);
    if (isTty) {
      process.stdout.write(`\r\x1b[2K${line}`);
      redrawn = true;
    } else if (Date.now() - lastPrinted > 15_000) {
      log(line);
      lastPrinted = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1000));
  }
}
