import { readResultSet } from '../../storage/results.js';
import type { LoadedConfig } from '../../schemas/config.js';
import type { CampaignState } from '../../schemas/campaign.js';
import { compareResults, type Comparison } from '../../stats/compare.js';
import { coverageTables } from '../../stats/report/coverage.js';
import { comparisonBreakdownTables, comparisonTable, flipsTable } from '../../stats/tables/layouts.js';
import { renderText } from '../../stats/tables/table.js';
import { baseAndTrainedEvaluations } from '../commands/report.js';
import { controlPool } from '../../workers/stores.js';

/** Base policy (the evaluation before step 1) against the last evaluated policy, on the eval split. */
export async function compareCampaign(
  config: LoadedConfig,
  id: string,
  state: CampaignState,
  k: number,
): Promise<{ comparison: Comparison; baseSet: string; trainedSet: string; trainedStep: number }> {
  const { base, trained } = baseAndTrainedEvaluations(id, state);
  const pool = controlPool(config, 1);
  try {
    const comparison = compareResults(
      await readResultSet(pool, base.resultSet),
      await readResultSet(pool, trained.resultSet),
      {
        k,
        seed: 1,
        sources: [base.resultSet, trained.resultSet],
        ...(state.trainingDomains ? { trainingDomains: state.trainingDomains } : {}),
      },
    );
    return { comparison, baseSet: base.resultSet, trainedSet: trained.resultSet, trainedStep: trained.step };
  } finally {
    await pool.end();
  }
}

export function renderComparison(comparison: Comparison): string {
  return [
    comparisonTable(comparison),
    ...comparisonBreakdownTables(comparison),
    flipsTable(comparison),
    ...coverageTables(comparison),
  ]
    .map(renderText)
    .join('\n\n');
}
