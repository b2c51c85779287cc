import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Trajectory } from '../../schemas/trajectory.js';
import { compareResults } from '../../stats/compare.js';
import { compareSurprisal, FIRST_TOKENS, firstTurnSurprisal } from '../../stats/first-token-surprisal.js';
import { seededRandom } from '../../stats/random.js';
import { buildReport } from '../../stats/report/document.js';
import type { EpisodeLink, ReportEpisodes } from '../../stats/report/episodes.js';
import { renderMarkdown, renderText, type Table } from '../../stats/tables/table.js';
import { taskRows } from './rows.js';

// Rows whose answer is known: per task, the base's and the trained policy's rewards over 4 trials.
const cases: Array<{ id: string; domain: string; tags: string[]; base: Array<0 | 1>; trained: Array<0 | 1> }> = [
  { id: 'r-cancel-1', domain: 'retail', tags: ['cancel_order'], base: [0, 1, 0, 0], trained: [0, 0, 0, 0] }, // lost
  { id: 'r-cancel-2', domain: 'retail', tags: ['cancel_order'], base: [1, 1, 1, 1], trained: [1, 1, 1, 1] },
  { id: 'r-return-1', domain: 'retail', tags: ['return_item', 'refuse'], base: [0, 0, 0, 1], trained: [0, 0, 0, 0] }, // lost
  { id: 'r-return-2', domain: 'retail', tags: ['return_item'], base: [0, 0, 0, 0], trained: [0, 1, 1, 0] }, // gained
  { id: 't-seat-1', domain: 'travel', tags: ['seat_change'], base: [1, 0, 0, 0], trained: [0, 0, 0, 0] }, // lost
  { id: 't-seat-2', domain: 'travel', tags: ['seat_change'], base: [0, 0, 0, 0], trained: [0, 0, 0, 0] },
  { id: 'i-claim-1', domain: 'insurance', tags: ['contact_update'], base: [0, 0, 0, 0], trained: [1, 0, 0, 0] }, // gained
  { id: 'r-contact-1', domain: 'retail', tags: ['contact_update'], base: [1, 1, 0, 1], trained: [1, 1, 1, 1] },
];
const LOST = ['r-cancel-1', 'r-return-1', 't-seat-1'];
const GAINED = ['r-return-2', 'i-claim-1'];
const rowsOf = (side: 'base' | 'trained') =>
  cases.flatMap((c) => taskRows(c.id, c[side], { domain: c.domain, tags: c.tags, costUsd: 0.5 }));
const comparison = () => compareResults(rowsOf('base'), rowsOf('trained'));

const rowOf = (table: Table, first: string) => table.rows.find((r) => r[0] === first);

/** The report's coverage section on these rows, with the episodes when given. */
function coverageSection(episodes?: ReportEpisodes) {
  const input = { title: 't', base: rowsOf('base'), trained: rowsOf('trained'), steps: [], evalPoints: [], pool: [] };
  const section = buildReport({ ...input, ...(episodes ? { episodes } : {}) }).sections.find(
    (s) => s.id === 'coverage',
  )!;
  return { section, table: (id: string) => section.tables.find((t) => t.id === id)! };
}

test('coverage: every lost and every gained task is in the table, with its family and counts; by domain and by family', () => {
  const c = comparison();
  assert.deepEqual(c.coverage.lost.map((f) => f.taskId).sort(), [...LOST].sort());
  assert.deepEqual(c.coverage.gained.map((f) => f.taskId).sort(), [...GAINED].sort());
  assert.deepEqual(c.flips.coverage, {
    lost: c.coverage.lost.map((f) => f.taskId),
    gained: c.coverage.gained.map((f) => f.taskId),
  });

  const { table } = coverageSection();
  const tasks = table('coverage-tasks');
  for (const id of LOST) {
    const row = rowOf(tasks, id);
    assert.ok(row, `lost task ${id} is missing from the coverage table`);
    assert.equal(row[2], 'lost');
  }
  for (const id of GAINED) assert.equal(rowOf(tasks, id)?.[2], 'gained', `gained task ${id}`);
  assert.equal(tasks.rows.length, LOST.length + GAINED.length, 'no other task');
  assert.deepEqual(rowOf(tasks, 'r-return-1'), ['r-return-1', 'retail/return_item', 'lost', '1/4', '0/4']);
  assert.deepEqual(rowOf(tasks, 'i-claim-1'), ['i-claim-1', 'insurance/contact_update', 'gained', '0/4', '1/4']);

  // Domain, tasks, solved base, solved trained, lost, gained, net.
  const byDomain = table('coverage');
  assert.deepEqual(rowOf(byDomain, 'retail'), ['retail', '5', '4', '3', '2', '1', '−1']);
  assert.deepEqual(rowOf(byDomain, 'travel'), ['travel', '2', '1', '0', '1', '0', '−1']);
  assert.deepEqual(rowOf(byDomain, 'all'), ['all', '8', '5', '4', '3', '2', '−1']);
  const byFamily = table('coverage-by-family');
  assert.deepEqual(
    byFamily.rows.map((r) => r[0]),
    ['retail/return_item', 'retail/cancel_order', 'travel/seat_change', 'insurance/contact_update'],
    'families that changed, most lost first; a type of two domains stays two families',
  );
  assert.deepEqual(rowOf(byFamily, 'retail/return_item'), ['retail/return_item', '2', '1', '1', '1', '1', '0']);
  assert.match(byFamily.note!, /^1 of 5 families lost and gained no task/);

  // `finalstate compare` prints the same tables (renderComparison), without episode columns.
  const text = renderText(tasks);
  for (const id of [...LOST, ...GAINED]) assert.match(text, new RegExp(`^${id} `, 'm'));
  assert.match(renderMarkdown(byDomain), /\| all \| 8 \| 5 \| 4 \| 3 \| 2 \| −1 \|/);
});

test('coverage tasks link to a base episode that solved a lost task and a trained episode that failed it', () => {
  const link = (side: string, taskId: string, trial: number, reward: 0 | 1): EpisodeLink => ({
    episodeId: `${side}/${taskId}/t${trial}`,
    taskId,
    trial,
    reward,
    error: null,
    finishReason: 'agent_done',
    summary: `${taskId} t${trial}`,
    href: `episodes/${side}-${taskId}-${trial}.html`,
    firstTokenSurprisal: [side === 'base' ? 2 : 1, side === 'base' ? 2 : 1],
  });
  const links = (side: 'base' | 'trained') =>
    cases.flatMap((c) => c[side].map((reward, trial) => link(side, c.id, trial, reward)));
  const { section, table } = coverageSection({ base: links('base'), trained: links('trained'), steps: [] });
  const tasks = table('coverage-tasks');
  const i = tasks.rows.findIndex((r) => r[0] === 't-seat-1');
  assert.deepEqual(tasks.rows[i]!.slice(5), ['t0 passed', 't0 failed (agent_done)']);
  assert.deepEqual(tasks.links![i]!.slice(5), ['episodes/base-t-seat-1-0.html', 'episodes/trained-t-seat-1-0.html']);
  const gained = tasks.rows.findIndex((r) => r[0] === 'r-return-2');
  assert.deepEqual(tasks.links![gained]!.slice(5), [
    'episodes/base-r-return-2-0.html',
    'episodes/trained-r-return-2-1.html',
  ]);
  assert.match(renderMarkdown(tasks), /\[t0 passed\]\(episodes\/base-t-seat-1-0\.html\)/);

  const entropy = table('coverage-entropy');
  assert.deepEqual(rowOf(entropy, 'lost coverage'), [
    'lost coverage',
    '3 of 3',
    '12 / 12',
    '2.000',
    '1.000',
    '−1.000',
    '[−1.000, −1.000]',
  ]);
  assert.equal(rowOf(entropy, 'all tasks')![1], '8 of 8');
  assert.match(section.paragraphs.join(' '), new RegExp(`first ${FIRST_TOKENS} tokens`));
});

test('first-turn surprisal: the first k sampled tokens of the first agent turn, negated', () => {
  const trajectory: Pick<Trajectory, 'segments' | 'rolloutLogprobs'> = {
    segments: [
      { kind: 'observation', start: 0, end: 3, textStart: 0, textEnd: 9 },
      { kind: 'sample', start: 3, end: 6, textStart: 9, textEnd: 18 },
      { kind: 'observation', start: 6, end: 7, textStart: 18, textEnd: 21 },
      { kind: 'sample', start: 7, end: 9, textStart: 21, textEnd: 27 },
    ],
    rolloutLogprobs: [0, 0, 0, -0.5, -1.5, -0.25, 0, -3, -4],
  };
  assert.deepEqual(firstTurnSurprisal(trajectory), [0.5, 1.5, 0.25], 'the second turn is not read');
  const adjacent = {
    ...trajectory,
    segments: [
      trajectory.segments[0]!,
      { ...trajectory.segments[1]!, end: 4 },
      { ...trajectory.segments[1]!, start: 4 },
      ...trajectory.segments.slice(2),
    ],
  };
  assert.deepEqual(firstTurnSurprisal(adjacent), [0.5], 'a sample segment is one completion, one turn');
  assert.deepEqual(firstTurnSurprisal(trajectory, 2), [0.5, 1.5]);
  assert.deepEqual(firstTurnSurprisal({ segments: [trajectory.segments[0]!], rolloutLogprobs: [0, 0, 0] }), []);
});

test('the sampled surprisal estimates the entropy: its mean over draws from p is H(p)', () => {
  const p = [0.5, 0.25, 0.125, 0.0625, 0.0625];
  const entropy = -p.reduce((s, q) => s + q * Math.log(q), 0);
  const random = seededRandom(3);
  const draws = 40_000;
  let sum = 0;
  for (let i = 0; i < draws; i++) {
    let u = random();
    const token = p.findIndex((q) => (u -= q) < 0);
    sum += -Math.log(p[token === -1 ? p.length - 1 : token]!);
  }
  assert.ok(Math.abs(sum / draws - entropy) < 0.02, `mean surprisal ${sum / draws} against H = ${entropy}`);
});

test('compareSurprisal: every task weighs the same; a task unmeasured on a side is left out', () => {
  const base = new Map([
    ['a', [[1, 1], [3]]], // task mean 5/3
    ['b', [[2]]],
    ['c', [[9]]],
  ]);
  const trained = new Map([
    ['a', [[1]]],
    ['b', [[1, 1, 1, 1]]],
  ]);
  const s = compareSurprisal(['a', 'b', 'c'], base, trained, { resamples: 200, seed: 1, level: 0.95 })!;
  assert.equal(s.tasks, 2);
  assert.deepEqual(s.episodes, { base: 3, trained: 2 });
  assert.ok(Math.abs(s.base - (5 / 3 + 2) / 2) < 1e-12);
  assert.equal(s.trained, 1);
  assert.ok(s.interval[0] <= s.delta && s.delta <= s.interval[1]);
  assert.equal(compareSurprisal(['c'], base, trained, { resamples: 10, seed: 1, level: 0.95 }), null);
});
