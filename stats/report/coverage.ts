import type { Comparison } from '../compare.js';
import type { CoverageFlip, CoverageGroup } from '../coverage.js';
import { compareSurprisal, FIRST_TOKENS, type SurprisalsByTask } from '../first-token-surprisal.js';
import { subSeed } from '../random.js';
import type { Table } from '../tables/table.js';
import { contrastPair, episodesByTask, type EpisodeLink, type ReportEpisodes } from './episodes.js';

const signed = (x: number) => (x > 0 ? `+${x}` : x < 0 ? `−${-x}` : '0');

function groupTable(id: string, title: string, column: string, groups: readonly CoverageGroup[], note?: string): Table {
  return {
    id,
    title,
    headers: [column, 'Tasks', 'solved base', 'solved trained', 'lost', 'gained', 'net'],
    rows: groups.map((g) => [
      g.name,
      String(g.tasks),
      String(g.base),
      String(g.trained),
      String(g.lost),
      String(g.gained),
      signed(g.gained - g.lost),
    ]),
    ...(note ? { note } : {}),
  };
}

/** Coverage by domain, with every domain and a row for all of them. */
export function coverageByDomainTable(c: Comparison): Table {
  const all = c.coverage.byDomain.reduce(
    (sum, g) => ({
      name: 'all',
      tasks: sum.tasks + g.tasks,
      base: sum.base + g.base,
      trained: sum.trained + g.trained,
      lost: sum.lost + g.lost,
      gained: sum.gained + g.gained,
    }),
    { name: 'all', tasks: 0, base: 0, trained: 0, lost: 0, gained: 0 },
  );
  return groupTable(
    'coverage',
    'Coverage by domain: tasks solved at least once, before and after',
    'Domain',
    [...c.coverage.byDomain, all],
    'lost: solved at least once by the base and never by the trained policy; gained: the reverse.',
  );
}

/** The task families that lost or gained a task, most lost first; the unchanged ones are counted in the note. */
export function coverageByFamilyTable(c: Comparison): Table {
  const changed = c.coverage.byFamily
    .filter((g) => g.lost + g.gained > 0)
    .sort((a, b) => b.lost - a.lost || b.gained - a.gained || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const unchanged = c.coverage.byFamily.length - changed.length;
  return groupTable(
    'coverage-by-family',
    'Coverage by task family (domain/first tag)',
    'Family',
    changed,
    `${unchanged} of ${c.coverage.byFamily.length} families lost and gained no task.`,
  );
}

const episodeText = (e: EpisodeLink | undefined) =>
  e === undefined
    ? '—'
    : `t${e.trial} ${e.error ? `error: ${e.error}` : e.reward === 1 ? 'passed' : `failed (${e.finishReason})`}`;

/**
 * Every task that lost or gained coverage, lost first. With the episodes, each row links to a base episode and a
 * trained one that show the change: for a lost task one the base solved and one the trained policy failed.
 */
export function coverageTasksTable(c: Comparison, episodes?: ReportEpisodes): Table {
  const flips = [...c.coverage.lost, ...c.coverage.gained];
  const base = episodes ? episodesByTask(episodes.base) : undefined;
  const trained = episodes ? episodesByTask(episodes.trained) : undefined;
  const rows: string[][] = [];
  const links: Array<Array<string | undefined>> = [];
  const count = (side: CoverageFlip['base']) => `${side.c}/${side.n}`;
  for (const f of flips) {
    const row = [f.taskId, f.family, f.change, count(f.base), count(f.trained)];
    if (!base || !trained) {
      rows.push(row);
      continue;
    }
    const pair = contrastPair(base.get(f.taskId) ?? [], trained.get(f.taskId) ?? [], f.change === 'gained');
    rows.push([...row, episodeText(pair.base), episodeText(pair.trained)]);
    links.push([undefined, undefined, undefined, undefined, undefined, pair.base?.href, pair.trained?.href]);
  }
  return {
    id: 'coverage-tasks',
    title: `Tasks that lost or gained coverage: ${c.coverage.lost.length} lost, ${c.coverage.gained.length} gained`,
    headers: [
      'Task',
      'Family',
      'Change',
      'base passed',
      'trained passed',
      ...(episodes ? ['base episode', 'trained episode'] : []),
    ],
    leftColumns: [0, 1, 2, 5, 6],
    rows,
    ...(episodes ? { links } : {}),
    ...(rows.length ? {} : { note: 'No task lost or gained coverage.' }),
  };
}

/** The tables `finalstate compare` prints and the report's coverage section starts with. */
export function coverageTables(c: Comparison, episodes?: ReportEpisodes): Table[] {
  return [coverageByDomainTable(c), coverageByFamilyTable(c), coverageTasksTable(c, episodes)];
}

/** Each task's episodes' first-token surprisals on one side (episodes with an outcome and a trajectory). */
function surprisalsByTask(list: readonly EpisodeLink[]): SurprisalsByTask {
  const out = new Map<string, number[][]>();
  for (const [taskId, episodes] of episodesByTask(list)) {
    const measured = episodes.flatMap((e) =>
      e.error === null && e.firstTokenSurprisal ? [e.firstTokenSurprisal] : [],
    );
    if (measured.length) out.set(taskId, measured);
  }
  return out;
}

const nats = (x: number) => x.toFixed(3);
const natsDelta = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

/** The first-token sampled surprisal, base against trained, on the lost tasks, the gained ones and every task. */
export function surprisalTable(c: Comparison, episodes: ReportEpisodes): Table {
  const base = surprisalsByTask(episodes.base);
  const trained = surprisalsByTask(episodes.trained);
  const sets: Array<[string, string[], number]> = [
    ['lost coverage', c.coverage.lost.map((f) => f.taskId), c.coverage.lost.length],
    ['gained coverage', c.coverage.gained.map((f) => f.taskId), c.coverage.gained.length],
    // Only a task with an outcome on both sides (a compared one) can be measured on both.
    ['all tasks', [...base.keys()], c.tasks.paired],
  ];
  const rows = sets.map(([label, ids, of]) => {
    const s = compareSurprisal(ids, base, trained, {
      resamples: c.intervalMethod.resamples,
      seed: subSeed(c.intervalMethod.seed, `surprisal ${label}`),
      level: c.intervalMethod.level,
    });
    return s
      ? [
          label,
          `${s.tasks} of ${of}`,
          `${s.episodes.base} / ${s.episodes.trained}`,
          nats(s.base),
          nats(s.trained),
          natsDelta(s.delta),
          `[${natsDelta(s.interval[0])}, ${natsDelta(s.interval[1])}]`,
        ]
      : [label, `0 of ${of}`, '—', '—', '—', '—', '—'];
  });
  return {
    id: 'coverage-entropy',
    title: `First-token entropy, estimated by the sampled surprisal (nats): the first ${FIRST_TOKENS} sampled tokens of the first agent turn`,
    headers: ['Tasks', 'measured', 'episodes base / trained', 'base', 'trained', 'Δ', '95% interval of Δ'],
    rows,
    note: 'Mean over tasks of the mean −log p of those tokens, each side under the policy that sampled them; a task is measured when both sides have an episode with a trajectory. Interval: paired bootstrap over tasks.',
  };
}

/** What the coverage section says before its tables. */
export function coverageParagraphs(c: Comparison, episodes?: ReportEpisodes): string[] {
  const { lost, gained } = c.coverage;
  return [
    `${lost.length} tasks solved at least once by the base were never solved by the trained policy (lost), and ${gained.length} the reverse (gained): tasks solved at least once went from ${c.counts.coverage.base} to ${c.counts.coverage.trained} of ${c.tasks.paired}. ` +
      "A task's family is its domain and its first tag: the task type, which the task generators put first, before the traits many types share (refuse, read-only, multi-write, needs-private-facts).",
    ...(episodes
      ? [
          `Entropy on the first tokens: the sampled surprisal −log p of the first ${FIRST_TOKENS} tokens the policy sampled in its first agent turn, read from each evaluation episode's trajectory, in nats. ` +
            "A trajectory keeps only the sampled tokens' log-probs, not the distributions. The surprisal of a token drawn from p is an unbiased single-sample estimate of p's entropy (when the server samples from the distribution whose log-probs it returns: temperature 1, top-p 1), so these means estimate the mean entropy at those positions; they are noisy per task, and the interval says how much. " +
            'Real entropies would need both checkpoints loaded again to score every evaluation episode.',
        ]
      : []),
  ];
}
