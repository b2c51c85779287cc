import type { Comparison } from '../compare.js';
import type { Table } from '../tables/table.js';

/** One episode the report can link to; `href` is set when its page was written. */
export interface EpisodeLink {
  episodeId: string;
  taskId: string;
  trial: number;
  reward: 0 | 1;
  error: string | null;
  finishReason: string;
  summary: string;
  href?: string;
  /** −log p of the first sampled tokens of the first agent turn (stats/first-token-surprisal.ts), when read. */
  firstTokenSurprisal?: number[];
}

/** The episodes behind the report's numbers: both evaluations and, per GRPO step, an index page of its episodes. */
export interface ReportEpisodes {
  base: EpisodeLink[];
  trained: EpisodeLink[];
  steps: Array<{ step: number; href: string; episodes: number; passed: number }>;
}

const failed = (e: EpisodeLink) => e.error !== null || e.reward === 0;

/** Each side's episodes by task. */
export function episodesByTask(list: readonly EpisodeLink[]): Map<string, EpisodeLink[]> {
  const map = new Map<string, EpisodeLink[]>();
  for (const e of list) map.set(e.taskId, [...(map.get(e.taskId) ?? []), e]);
  return map;
}

/**
 * The contrast of a flipped task: for a gain, a failing base episode and a passing trained one; for a loss, the
 * reverse (the first of each kind; any episode of the side when it has none of that kind).
 */
export function contrastPair(
  base: readonly EpisodeLink[],
  trained: readonly EpisodeLink[],
  gained: boolean,
): { base?: EpisodeLink; trained?: EpisodeLink } {
  const pick = (list: readonly EpisodeLink[], wantFailed: boolean) =>
    list.find((e) => failed(e) === wantFailed) ?? list[0];
  return { base: pick(base, gained), trained: pick(trained, !gained) };
}

/** "passed/episodes" of one side of a task. */
export const passedOf = (list: readonly EpisodeLink[]) => `${list.filter((e) => !failed(e)).length}/${list.length}`;

/** One row per task that flipped between base and trained (k/k or coverage), with a telling episode of each side. */
export function flippedTasksTable(c: Comparison, episodes: ReportEpisodes): Table {
  const base = episodesByTask(episodes.base);
  const trained = episodesByTask(episodes.trained);
  const k = c.k;
  const flips: Array<[string, string]> = [
    ...c.flips.kk.gained.map((t): [string, string] => [t, `gained ${k}/${k}`]),
    ...c.flips.kk.lost.map((t): [string, string] => [t, `lost ${k}/${k}`]),
    ...c.flips.coverage.gained
      .filter((t) => !c.flips.kk.gained.includes(t))
      .map((t): [string, string] => [t, 'gained coverage']),
    ...c.flips.coverage.lost
      .filter((t) => !c.flips.kk.lost.includes(t))
      .map((t): [string, string] => [t, 'lost coverage']),
  ];
  const rows: string[][] = [];
  const links: Array<Array<string | undefined>> = [];
  for (const [taskId, flip] of flips) {
    const b = base.get(taskId) ?? [];
    const t = trained.get(taskId) ?? [];
    const { base: be, trained: te } = contrastPair(b, t, flip.startsWith('gained'));
    rows.push([taskId, flip, passedOf(b), passedOf(t), be?.summary ?? '—', te?.summary ?? '—']);
    links.push([undefined, undefined, undefined, undefined, be?.href, te?.href]);
  }
  return {
    id: 'flipped-tasks',
    title: 'Flipped tasks, with an episode of each side',
    headers: ['Task', 'Flip', 'base passed', 'trained passed', 'base episode', 'trained episode'],
    leftColumns: [0, 1, 4, 5],
    rows,
    links,
    ...(rows.length ? {} : { note: 'No task flipped.' }),
  };
}

/** The trained policy's failed episodes (errors included), each linked to its page. */
export function failuresTable(episodes: ReportEpisodes, shown = 100): Table {
  const failures = episodes.trained.filter(failed);
  const list = failures.slice(0, shown);
  return {
    id: 'failures',
    title: `Failed episodes of the trained policy (${failures.length})`,
    headers: ['Episode', 'Finish', 'Summary'],
    leftColumns: [0, 1, 2],
    rows: list.map((e) => [
      `${e.taskId} t${e.trial}`,
      e.error ? `error: ${e.error}` : e.finishReason,
      e.summary.replace(/^\S+ t\d+ · /, ''),
    ]),
    links: list.map((e) => [e.href, undefined, undefined]),
    ...(failures.length > shown
      ? { note: `The first ${shown} of ${failures.length}; \`finalstate episode list --reward 0\` lists them all.` }
      : {}),
  };
}
