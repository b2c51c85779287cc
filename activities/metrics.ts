import type pg from 'pg';
import type { ArtifactStore } from '../storage/artifacts.js';
import type { EvaluationSummary } from '../schemas/pipeline.js';
import { computeMetricsOfTasks } from '../stats/metrics.js';
import { groupByTask } from '../stats/result-set.js';
import { failFastOnUserError } from './failures.js';
import { readResultSet } from '../storage/results.js';

export interface EvaluationMetricsInput {
  resultSet: string;
  k: number;
  /** Artifact key of the full metrics report. */
  key: string;
  trainingDomains?: string[];
}

/** Metrics of an evaluation's stored rows (stats/metrics.ts): the full report to the artifact store, headlines back. */
export function createMetricsActivities({ pool, artifacts }: { pool: pg.Pool; artifacts: ArtifactStore }) {
  return {
    async evaluationMetrics(
      input: EvaluationMetricsInput,
    ): Promise<{ metrics: EvaluationSummary; metricsUri: string }> {
      return failFastOnUserError(async () => {
        const rows = await readResultSet(pool, input.resultSet);
        const tasks = groupByTask(rows, input.resultSet);
        // Rows excluded for infrastructure failures can leave a task short of k outcomes: k then drops to its n.
        const measured = tasks.filter((t) => t.n > 0).map((t) => t.n);
        const k = Math.min(input.k, ...measured);
        const report = computeMetricsOfTasks(tasks, {
          k,
          source: input.resultSet,
          ...(input.trainingDomains ? { trainingDomains: input.trainingDomains } : {}),
        });
        const byDistribution: EvaluationSummary['byDistribution'] = report.byDistribution
          ? Object.fromEntries(
              Object.entries(report.byDistribution).map(([d, m]) => [
                d,
                { tasks: m.tasks, pass1: m.pass1, passAtK: m.passAtK, passedKK: m.observedKK.count },
              ]),
            )
          : undefined;
        const metricsUri = await artifacts.put(input.key, `${JSON.stringify(report, null, 2)}\n`);
        const byDomain: NonNullable<EvaluationSummary['byDomain']> = {};
        for (const domain of [...new Set(tasks.map((t) => t.domain))].sort()) {
          const d = computeMetricsOfTasks(
            tasks.filter((t) => t.domain === domain),
            { k, source: `${input.resultSet} (${domain})` },
          );
          byDomain[domain] = { tasks: d.tasks, pass1: d.pass1, passAtK: d.passAtK, passedKK: d.observedKK.count };
        }
        return {
          metricsUri,
          metrics: {
            tasks: report.tasks,
            attempts: report.attempts,
            pass1: report.pass1,
            pass1Low: report.intervals.pass1[0],
            pass1High: report.intervals.pass1[1],
            passAtK: report.passAtK,
            passedKK: report.observedKK.count,
            excludedInfra: report.excluded.infra,
            ...(byDistribution ? { byDistribution } : {}),
            byDomain,
          },
        };
      });
    },
  };
}
