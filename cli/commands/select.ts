import fs from 'node:fs';
import { UserError } from '../../core/errors.js';
import { simulateAdaptiveProbing, DEFAULT_STOP_THRESHOLD } from '../../stats/adaptive-probing.js';
import { DEFAULT_EDGES, DEFAULT_KEEP, defaultKeep, parseEdges, parseKeep } from '../../stats/bins.js';
import { groupByTask, readResultRows } from '../../stats/result-set.js';
import { selectPool } from '../../stats/selection.js';
import { poolSummaryTable, selectionTable } from '../../stats/tables/layouts.js';
import { renderText } from '../../stats/tables/table.js';
import { parse, printJson, type Command } from '../command.js';
import { integerOption, numberOption } from '../number-option.js';

const usage = `finalstate select PROBE.jsonl [--bins EDGES] [--keep BINS] [--reference REF.jsonl] [--max N] [--seed S]
                 [--threshold T] [--out POOL.json] [--json]

  Difficulty of every probed task from its Jeffreys posterior Beta(k+1/2, n−k+1/2): mass per bin (exact), the bin with
  the most mass, the posterior mean and 95% interval; then the frozen pool, with the reason each task is kept or dropped.

  --bins EDGES        bin edges from 0 to 1 (default ${DEFAULT_EDGES.join(',')})
  --keep BINS         0-based bins to keep (default: all but the first and last; ${DEFAULT_KEEP.join(',')} for the default bins)
  --reference FILE    a reference model's probe: keep only tasks it solved at least once
  --max N             cap the pool: seeded sample, stratified by domain and tags
  --seed S            seed of that sample (default 0)
  --threshold T       largest-bin mass at which adaptive probing would stop, for the simulation (default ${DEFAULT_STOP_THRESHOLD})
  --out FILE          write the frozen pool (schemas/json/FrozenPool.schema.json)`;

export const selectCommand: Command = {
  name: 'select',
  summary: 'estimate task difficulty from a probe and freeze the training pool',
  usage,
  async run(argv) {
    const { values, positionals } = parse('select', argv, {
      bins: { type: 'string' },
      keep: { type: 'string' },
      reference: { type: 'string' },
      max: { type: 'string' },
      seed: { type: 'string' },
      threshold: { type: 'string' },
      out: { type: 'string' },
    });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    if (positionals.length !== 1)
      throw new UserError(`finalstate select: expected one probe results file, got ${positionals.length}\n\n${usage}`);
    const file = positionals[0]!;
    const edges = values.bins ? parseEdges(values.bins, 'finalstate select --bins') : [...DEFAULT_EDGES];
    const keep = values.keep ? parseKeep(values.keep, edges, 'finalstate select --keep') : defaultKeep(edges);
    const probe = groupByTask(readResultRows(file), file);
    const reference = values.reference ? groupByTask(readResultRows(values.reference), values.reference) : undefined;
    const pool = selectPool(probe, {
      edges,
      keep,
      reference,
      max: integerOption(values.max, 'max', 'select', 0) ?? null,
      seed: integerOption(values.seed, 'seed', 'select', 0) ?? 0,
    });
    const threshold = numberOption(values.threshold, 'threshold', 'select', 0, 1) ?? DEFAULT_STOP_THRESHOLD;
    const { perTask: _, ...adaptiveProbing } = simulateAdaptiveProbing(
      probe.filter((t) => t.n > 0).map((t) => ({ taskId: t.taskId, outcomes: t.outcomes })),
      edges,
      threshold,
    );
    if (values.out) fs.writeFileSync(values.out, `${JSON.stringify(pool, null, 2)}\n`);
    if (values.json) {
      printJson({ file, ...pool, adaptiveProbing, ...(values.out ? { written: values.out } : {}) });
      return 0;
    }
    console.log([selectionTable(pool), poolSummaryTable(pool)].map(renderText).join('\n\n'));
    console.log(`\nKept pool (${pool.pool.length}): ${pool.pool.join(', ') || 'none'}`);
    console.log(
      `Adaptive probing (stop at largest bin mass >= ${threshold}), replayed on this probe: ${adaptiveProbing.adaptiveEpisodes} of ${adaptiveProbing.fixedEpisodes} episodes ` +
        `(${adaptiveProbing.saved} saved, ${(100 * adaptiveProbing.savedFraction).toFixed(1)}%); bin differs for ${adaptiveProbing.binChanged} tasks (${(100 * adaptiveProbing.binChangedFraction).toFixed(1)}%)`,
    );
    if (values.out) console.log(`Frozen pool written to ${values.out}`);
    return 0;
  },
};
