import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { campaignSpend, readResultSet } from '../../storage/results.js';
import { localPathOf } from '../../storage/artifacts.js';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { UserError } from '../../core/errors.js';
import { connectClient } from '../../workers/temporal-client.js';
import type { CampaignState } from '../../schemas/campaign.js';
import { FrozenPool } from '../../schemas/results.js';
import { writeEpisodePages } from '../../runtime/episode/audit/episode-pages.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { trainingSpend } from '../../stats/cost-with-training.js';
import { computeMetrics } from '../../stats/metrics.js';
import { writeReport } from '../../stats/report/index.js';
import type { CampaignResult } from '../../workflows/campaign/index.js';
import { stateQuery } from '../../workflows/definitions.js';
import { parse, printJson, type Command } from '../command.js';
import { controlPool, defaultArtifactStore } from '../../workers/stores.js';

const usage = `finalstate report ID [--out DIR] [--json]

  Write the HTML report of campaign ID (and its Markdown twin): base against the latest evaluated policy, training
  curves from the step summaries, the pool's difficulty histogram. Default DIR: <dataDir>/reports/<ID>.`;

/** A finished campaign's state is its result; a running one answers the state query (the latest run after continueAsNew). */
export async function campaignStateOf(client: Client, id: string): Promise<CampaignState> {
  const handle = client.workflow.getHandle(id);
  const { status } = await handle.describe();
  if (status.name === 'COMPLETED') return ((await handle.result()) as CampaignResult).state;
  return handle.query(stateQuery);
}

async function campaignState(id: string): Promise<CampaignState> {
  const client = await connectClient(loadConfig());
  try {
    return await campaignStateOf(client, id).catch((err: Error) => {
      if (err.name === 'WorkflowNotFoundError')
        throw new UserError(`finalstate report: no campaign ${JSON.stringify(id)} (${err.message})`);
      throw err;
    });
  } finally {
    await client.connection.close();
  }
}

/** The evaluation of the base policy (step 0) and of the latest evaluated trained policy. */
export function baseAndTrainedEvaluations(
  id: string,
  state: CampaignState,
): { base: { step: number; resultSet: string }; trained: { step: number; resultSet: string } } {
  const base = state.evalResultSets.find((e) => e.step === 0);
  const trained = [...state.evalResultSets].sort((a, b) => b.step - a.step)[0];
  if (!base || !trained || trained.step === 0)
    throw new UserError(
      `campaign ${id} has no evaluation of a trained policy yet (evaluated steps: ${state.evalResultSets.map((e) => e.step).join(', ') || 'none'})`,
    );
  return { base, trained };
}

/** The HTML (and Markdown) report of a campaign: its base evaluation against its latest evaluated policy. */
export async function writeCampaignReport(
  config: LoadedConfig,
  id: string,
  state: CampaignState,
  outDir = path.join(config.dataPath, 'reports', id),
  deviations: string[] = [],
) {
  const { base, trained } = baseAndTrainedEvaluations(id, state);
  const pool = controlPool(config, 1);
  try {
    const frozen = state.poolUri
      ? FrozenPool.parse(JSON.parse(fs.readFileSync(localPathOf(state.poolUri), 'utf8')))
      : undefined;
    const episodes = await writeEpisodePages(new EpisodeStore(pool), {
      campaignId: id,
      base: base.resultSet,
      trained: trained.resultSet,
      steps: state.steps.map((s) => ({ step: s.step, resultSet: `${id}/step-${s.step}` })),
      outDir,
      trajectories: defaultArtifactStore(config),
    });
    const domainEvalPoints = [];
    for (const e of state.evalResultSets) {
      const rows = await readResultSet(pool, e.resultSet);
      for (const domain of [...new Set(rows.map((r) => r.domain))].sort()) {
        domainEvalPoints.push({
          step: e.step,
          domain,
          pass1: computeMetrics(
            rows.filter((r) => r.domain === domain),
            { source: e.resultSet },
          ).pass1,
        });
      }
    }
    return writeReport(
      {
        title: `Campaign ${id}`,
        base: await readResultSet(pool, base.resultSet),
        trained: await readResultSet(pool, trained.resultSet),
        steps: state.steps,
        evalPoints: state.evalPoints,
        domainEvalPoints,
        episodes,
        training: trainingSpend(id, await campaignSpend(pool, id), state.steps, state.costs, trained.step),
        pool: frozen?.records ?? [],
        ...(frozen?.solvabilityFilter ? { solvabilityFilter: true } : {}),
        ...(state.poolHistory ? { poolHistory: state.poolHistory } : {}),
        ...(frozen ? { edges: frozen.edges } : {}),
        ...(state.trainingDomains ? { trainingDomains: state.trainingDomains } : {}),
        ...(deviations.length ? { deviations } : {}),
        ...(state.failedStep ? { failedStep: state.failedStep } : {}),
      },
      outDir,
    );
  } finally {
    await pool.end();
  }
}

export const reportCommand: Command = {
  name: 'report',
  summary: 'write the HTML report of a campaign',
  usage,
  async run(argv) {
    const { values, positionals } = parse('report', argv, { out: { type: 'string' } });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    if (positionals.length !== 1)
      throw new UserError(`finalstate report: expected one campaign ID, got ${positionals.length}\n\n${usage}`);
    const id = positionals[0]!;
    const config = loadConfig();
    const state = await campaignState(id);
    const written = await writeCampaignReport(config, id, state, values.out);
    if (values.json)
      printJson({ campaignId: id, html: written.html, markdown: written.markdown, charts: written.charts });
    else console.log(`report: ${written.html}\n  markdown: ${written.markdown}`);
    return 0;
  },
};
