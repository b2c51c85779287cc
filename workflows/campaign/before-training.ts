import { executeChild } from '@temporalio/workflow';
import { addChildTotals, preflightInput, probeInput, referenceProbeInput } from '../inputs.js';
import { updatePreflight } from '../preflight.js';
import { probe } from '../probe.js';
import { childOptions, runChild, shortPath } from './children.js';
import type { CampaignRun } from './run.js';

/** Refuses an update that will not fit the gpu worker's memory before anything runs. */
export async function runPreflight(run: CampaignRun): Promise<void> {
  const workflowId = `${run.id}/preflight`;
  await runChild(run, workflowId, () =>
    executeChild(updatePreflight, {
      workflowId,
      staticSummary: `memory preflight of the policy update · ${shortPath(run.config.update.baseModel)}`,
      args: [preflightInput(run.config)],
    }),
  );
}

/** Probes the candidates with the base policy and, with referenceProbe, with the reference policy too. */
export async function probeCandidates(run: CampaignRun): Promise<void> {
  const { config, state, id } = run;
  const train = config.tasks.train;
  const workflowId = `${id}/probe`;
  const { n, nMax, adaptive } = config.probing;
  const perTask = adaptive ? `${n} to ${nMax} episodes per task, adaptive` : `${n} episodes per task`;
  const result = await runChild(run, workflowId, () =>
    executeChild(probe, {
      workflowId,
      ...childOptions(
        run,
        0,
        train.split,
        `probe the base policy · ${shortPath(train.taskSet)} (${train.split}) · ${perTask}`,
      ),
      args: [probeInput(config)],
    }),
  );
  state.probeResultSet = result.resultSet;
  addChildTotals(state, result);
  const reference = referenceProbeInput(config);
  if (reference) {
    const referenceId = `${id}/probe-reference`;
    const referenceResult = await runChild(run, referenceId, () =>
      executeChild(probe, {
        workflowId: referenceId,
        ...childOptions(
          run,
          0,
          train.split,
          `probe the reference policy (solvability gate) · ${shortPath(train.taskSet)} (${train.split}) · ${reference.n} episodes per task`,
        ),
        args: [reference],
      }),
    );
    state.referenceResultSet = referenceResult.resultSet;
    state.referenceGated = config.referenceProbe!.gate;
    addChildTotals(state, referenceResult);
  }
}
