import { UserError } from '../../core/errors.js';
import { compareResults } from '../../stats/compare.js';
import { readPriceTable } from '../../stats/cost.js';
import { readResultRows } from '../../stats/result-set.js';
import { renderComparison } from '../demo/summary.js';
import { parse, printJson, type Command } from '../command.js';
import { domainsOption, integerOption } from '../number-option.js';

const usage = `finalstate compare BASE.jsonl TRAINED.jsonl [--k K] [--seed S] [--resamples B] [--prices FILE] [--training-domains D1,D2] [--json]

  Base vs trained on the tasks both files measured: per-metric deltas with 95% paired-bootstrap intervals (tasks
  resampled with replacement, fixed seed), a per-domain table, per-task flips (gained or lost k/k, gained or lost
  coverage), a sharpening summary, and where coverage went: the tasks solved at least once by one side and never by
  the other, by domain, by task family (domain/first tag) and one by one (the report adds their episodes and the
  first-token entropy, which result rows do not carry).

  --k K          trials per task for pass@k, k/k and pass^k (default: the smallest n in either file)
  --seed S       bootstrap seed (default 1)
  --resamples B  bootstrap resamples (default 2000)
  --training-domains D1,D2  the domains training used: every metric also in-domain against out-of-domain
  --prices FILE  price table for cost from token usage`;

export const compareCommand: Command = {
  name: 'compare',
  summary: 'base vs trained: metric deltas with intervals, per domain, per-task flips, sharpening',
  usage,
  async run(argv) {
    const { values, positionals } = parse('compare', argv, {
      k: { type: 'string' },
      seed: { type: 'string' },
      resamples: { type: 'string' },
      prices: { type: 'string' },
      'training-domains': { type: 'string' },
    });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    if (positionals.length !== 2)
      throw new UserError(
        `finalstate compare: expected two results files (base, trained), got ${positionals.length}\n\n${usage}`,
      );
    const [baseFile, trainedFile] = positionals as [string, string];
    const comparison = compareResults(readResultRows(baseFile), readResultRows(trainedFile), {
      k: integerOption(values.k, 'k', 'compare', 1),
      seed: integerOption(values.seed, 'seed', 'compare', 0),
      resamples: integerOption(values.resamples, 'resamples', 'compare', 100),
      prices: values.prices ? readPriceTable(values.prices) : undefined,
      sources: [baseFile, trainedFile],
      ...domainsOption(values['training-domains']),
    });
    if (values.json) {
      printJson({ files: { base: baseFile, trained: trainedFile }, ...comparison });
      return 0;
    }
    console.log(renderComparison(comparison));
    const { onlyBase, onlyTrained } = comparison.tasks;
    if (onlyBase.length + onlyTrained.length > 0)
      console.log(
        `\nNot paired (left out): ${onlyBase.length} tasks only in base, ${onlyTrained.length} only in trained`,
      );
    return 0;
  },
};
