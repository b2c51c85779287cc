import { execFile } from 'node:child_process';
import { fromRoot } from '../../core/paths.js';
import type { WorkflowHandle } from '@temporalio/client';
import assert from 'node:assert/strict';
import type { CampaignStatus } from '../../schemas/campaign.js';
import { statusQuery } from '../../workflows/definitions.js';
import type { CliResult } from '../helpers/index.js';

/**
 * The real `finalstate` CLI in a child process, without blocking this process: the workers answering the CLI's
 * queries run here, so spawnSync (runCli) would deadlock them.
 */
export function runCliAsync(args: string[], timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [fromRoot('bin', 'finalstate.js'), ...args],
      { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const status = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : -1
          : 0;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

/**
 * The campaign's status once a step failed (its status query, asked until then; a phase other than training or an
 * evaluation fails the test), and what `campaign status` prints of it, as text and with --json.
 */
export async function failedStepStatus(
  handle: WorkflowHandle,
): Promise<{ status: CampaignStatus; text: string; json: CampaignStatus }> {
  let status: CampaignStatus;
  for (;;) {
    status = await handle.query(statusQuery);
    if (status.phase === 'step-failed') break;
    assert.ok(status.phase === 'train' || status.phase === 'eval', `the campaign went on to ${status.phase}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const text = await runCliAsync(['campaign', 'status', handle.workflowId]);
  const json = await runCliAsync(['campaign', 'status', handle.workflowId, '--json']);
  return { status, text: text.stdout, json: JSON.parse(json.stdout) as CampaignStatus };
}
