import { UserError } from '../../core/errors.js';
import { readPriceTable } from '../../stats/cost.js';
import { computeMetrics, type MetricsReport } from '../../stats/metrics.js';
import { readResultRows } from '../../stats/result-set.js';
import { metricsTables } from '../../stats/tables/layouts.js';
import { renderText } from '../../stats/tables/table.js';
import { parse, printJson, type Command } from '../command.js';
import { domainsOption, integerOption } from '../number-option.js';

const usage = `finalstate metrics RESULTS.jsonl [--k K] [--prices FILE] [--training-domains D1,D2] [--json]

  Metrics of a result set: pass@1, pass@k, tasks passed k/k, pass^k (unbiased and plug-in), the Jeffreys E[p^k],
  intervals and cost, overall, by domain and by tag. Rows with an error are excluded and reported separately.

  --k K          trials per task for pass@k, k/k and pass^k (default: the smallest n of any task)
  --training-domains D1,D2  the domains training used: every metric also in-domain against out-of-domain
  --prices FILE  price table (JSON, schemas/json/PriceTable.schema.json): cost from token usage per role
                 instead of the rows' costUsd`;

function excludedLines(m: MetricsReport): string[] {
  const e = m.excluded;
  if (e.rows === 0 && e.tasksWithoutOutcome.length === 0) return ['Excluded: none (every row has an outcome)'];
  const lines = [
    `Excluded: ${e.rows} rows with an error (${e.infra} infra, ${e.grader} grader), costing ${e.costUsd.toFixed(2)} $ (in the total)`,
  ];
  if (e.tasksWithoutOutcome.length > 0)
    lines.push(`Tasks without any outcome, left out of every rate: ${e.tasksWithoutOutcome.join(', ')}`);
  return lines;
}

export const metricsCommand: Command = {
  name: 'metrics',
  summary: 'pass@1, pass@k, k/k, pass^k, intervals and cost of a results file',
  usage,
  async run(argv) {
    const { values, positionals } = parse('metrics', argv, {
      k: { type: 'string' },
      prices: { type: 'string' },
      'training-domains': { type: 'string' },
    });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    if (positionals.length !== 1)
      throw new UserError(`finalstate metrics: expected one results file, got ${positionals.length}\n\n${usage}`);
    const file = positionals[0]!;
    const prices = values.prices ? readPriceTable(values.prices) : undefined;
    const report = computeMetrics(readResultRows(file), {
      k: integerOption(values.k, 'k', 'metrics', 1),
      prices,
      source: file,
      ...domainsOption(values['training-domains']),
    });
    if (values.json) {
      printJson({ file, ...report });
      return 0;
    }
    console.log(metricsTables(report).map(renderText).join('\n\n'));
    console.log(`\n${excludedLines(report).join('\n')}`);
    return 0;
  },
};
