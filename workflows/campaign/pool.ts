import { executeChild, proxyActivities } from '@temporalio/workflow';
import type { ControlActivities } from '../../activities/index.js';
import { FailureType } from '../../core/failure-types.js';
import { addChildTotals, reprobeInput } from '../inputs.js';
import { probe } from '../probe.js';
import { childOptions, runChild, shortPath } from './children.js';
import type { CampaignRun } from './run.js';

const { freezePool, reprobePool } = proxyActivities<ControlActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: [FailureType.userError] },
});

/** Freezes the RL pool from the probe rows (freezePool) and sets the training domains. */
export async function selectPool({ config, state, id }: CampaignRun): Promise<void> {
  const frozen = await freezePool({
    campaignId: id,
    probeResultSet: state.probeResultSet!,
    ...(state.referenceResultSet && config.referenceProbe
      ? {
          reference: {
            resultSet: state.referenceResultSet,
            gate: config.referenceProbe.gate,
            model: config.referenceProbe.endpoint.model,
            baseUrl: config.referenceProbe.endpoint.baseUrl,
          },
        }
      : {}),
    selection: config.selection,
  });
  state.pool = frozen.pool;
  state.poolUri = frozen.poolUri;
  if (frozen.reference) {
    state.droppedByReference = frozen.reference.dropped;
    state.solvedByReference = frozen.reference.solved;
  }
  state.trainingDomains = config.tasks.train.domains ? [...config.tasks.train.domains].sort() : frozen.domains;
  if (config.reprobe)
    state.poolHistory = [
      {
        version: 0,
        step: 0,
        size: frozen.pool.length,
        probeResultSet: state.probeResultSet!,
        uri: frozen.poolUri,
        left: [],
        entered: [],
        unreplaced: 0,
      },
    ];
}

/**
 * Re-probe every candidate with the step-`step` policy (the probe child, fixed n) and swap the pool's tasks that
 * left the kept bins (reprobePool). A changed pool starts a fresh sampler epoch, so every task of the new pool is
 * drawn once before any is drawn twice.
 */
export async function reprobe(run: CampaignRun, step: number): Promise<void> {
  const { config, state } = run;
  const workflowId = `${run.id}/reprobe-step-${step}`;
  const input = reprobeInput(config, state, step);
  const result = await runChild(run, workflowId, () =>
    executeChild(probe, {
      workflowId,
      ...childOptions(
        run,
        step,
        config.tasks.train.split,
        `re-probe the step-${step} policy · ${shortPath(config.tasks.train.taskSet)} (${config.tasks.train.split}) · ${input.n} episodes per task`,
      ),
      args: [input],
    }),
  );
  addChildTotals(state, result);
  const swapped = await reprobePool({
    campaignId: run.id,
    step,
    probeResultSet: result.resultSet,
    pool: state.pool ?? [],
    selection: config.selection,
    ...(state.trainingDomains ? { trainingDomains: state.trainingDomains } : {}),
  });
  const history = state.poolHistory ?? [];
  history.push({
    version: history.length,
    step,
    size: swapped.pool.length,
    probeResultSet: result.resultSet,
    uri: swapped.uri,
    left: swapped.left,
    entered: swapped.entered,
    unreplaced: swapped.unreplaced,
  });
  state.poolHistory = history;
  if (swapped.left.length > 0) {
    state.pool = swapped.pool;
    state.sampler = { epoch: state.sampler.epoch + 1, cursor: 0 };
  }
}
