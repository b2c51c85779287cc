import fs from 'node:fs';
import path from 'node:path';
import { Trajectory } from '../../../schemas/trajectory.js';
import type { ArtifactStore } from '../../../storage/artifacts.js';
import { firstTurnSurprisal } from '../../../stats/first-token-surprisal.js';
import type { EpisodeLink, ReportEpisodes } from '../../../stats/report/episodes.js';
import { escapeHtml } from '../../../stats/tables/table.js';
import type { EpisodeListing, EpisodeStore } from '../episode-store.js';
import { episodeView } from './episode-view.js';
import { renderEpisodeHtml } from './render-html.js';

export interface EpisodePagesInput {
  /** Narrows every lookup to the campaign's rows (indexed), before the result-set prefix. */
  campaignId: string;
  /** Result sets of the two evaluations the report compares, and of each GRPO step. */
  base: string;
  trained: string;
  steps: Array<{ step: number; resultSet: string }>;
  /** The report's directory: pages go to `<outDir>/episodes/`, linked relative to the report. */
  outDir: string;
  reportName?: string;
  /** Where the evaluation episodes' trajectories are read, for their first-token surprisal; absent: not read. */
  trajectories?: Pick<ArtifactStore, 'read'>;
}

const failed = (e: Pick<EpisodeListing, 'reward' | 'error'>) => e.error !== null || e.reward === 0;

/** A file name per episode id: readable, and unique through a short hash of the id. */
export function pageName(episodeId: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < episodeId.length; i++) hash = Math.imul(hash ^ episodeId.charCodeAt(i), 0x01000193) >>> 0;
  return `${episodeId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-80)}-${hash.toString(16).padStart(8, '0')}.html`;
}

/**
 * Write the episode pages a campaign report links to, and the index page of each step. Pages are written for every
 * evaluation episode of a task whose pass count changed and every failure of the trained policy, and, per step, for one passed and one
 * failed episode of each group (a contrast pair), so that a long campaign does not write thousands of pages.
 */
export async function writeEpisodePages(store: EpisodeStore, input: EpisodePagesInput): Promise<ReportEpisodes> {
  const dir = path.join(input.outDir, 'episodes');
  fs.mkdirSync(dir, { recursive: true });
  const reportHref = `../${input.reportName ?? 'report'}.html`;
  const written = new Set<string>();
  const writePages = async (ids: string[]) => {
    const todo = ids.filter((id) => !written.has(id));
    for (let i = 0; i < todo.length; i += 200) {
      for (const record of await store.loadMany(todo.slice(i, i + 200))) {
        fs.writeFileSync(
          path.join(dir, pageName(record.outcome.episodeId)),
          renderEpisodeHtml(episodeView(record), { back: { href: reportHref, label: 'campaign report' } }),
        );
        written.add(record.outcome.episodeId);
      }
    }
  };
  const link = (e: EpisodeListing): EpisodeLink => ({
    episodeId: e.episodeId,
    taskId: e.taskId,
    trial: e.trial,
    reward: e.reward,
    error: e.error,
    finishReason: e.finishReason,
    summary: e.summary ?? `${e.taskId} t${e.trial} · reward ${e.reward} · ${e.finishReason}`,
    ...(written.has(e.episodeId) ? { href: `episodes/${pageName(e.episodeId)}` } : {}),
  });

  const base = await store.list({ campaignId: input.campaignId, idPrefix: `${input.base}/` });
  const trained = await store.list({ campaignId: input.campaignId, idPrefix: `${input.trained}/` });
  // Every episode of a task whose two sides differ in passes (the flips), and every failure of the trained policy.
  const passes = (list: EpisodeListing[]) => {
    const m = new Map<string, number>();
    for (const e of list) m.set(e.taskId, (m.get(e.taskId) ?? 0) + (failed(e) ? 0 : 1));
    return m;
  };
  const bp = passes(base);
  const tp = passes(trained);
  const changed = (e: EpisodeListing) => bp.get(e.taskId) !== tp.get(e.taskId);
  await writePages(
    [...base.filter(changed), ...trained.filter((e) => changed(e) || failed(e))].map((e) => e.episodeId),
  );

  const steps: ReportEpisodes['steps'] = [];
  for (const { step, resultSet } of input.steps) {
    const episodes = await store.list({ campaignId: input.campaignId, idPrefix: `${resultSet}/` });
    const pairs = new Map<string, { pass?: string; fail?: string }>();
    for (const e of episodes) {
      const pair = pairs.get(String(e.group)) ?? {};
      if (failed(e)) pair.fail ??= e.episodeId;
      else pair.pass ??= e.episodeId;
      pairs.set(String(e.group), pair);
    }
    await writePages(
      [...pairs.values()].flatMap((p) => [p.pass, p.fail].filter((id): id is string => id !== undefined)),
    );
    const file = `step-${step}.html`;
    fs.writeFileSync(path.join(dir, file), stepIndexHtml(step, episodes.map(link), reportHref));
    steps.push({
      step,
      href: `episodes/${file}`,
      episodes: episodes.length,
      passed: episodes.filter((e) => !failed(e)).length,
    });
  }
  const surprisal = input.trajectories ? await firstTokenSurprisals([...base, ...trained], input.trajectories) : null;
  const withSurprisal = (e: EpisodeListing): EpisodeLink => {
    const values = surprisal?.get(e.episodeId);
    return values ? { ...link(e), firstTokenSurprisal: values } : link(e);
  };
  return { base: base.map(withSurprisal), trained: trained.map(withSurprisal), steps };
}

/** The first-token surprisal of each episode with an outcome and a stored trajectory, read 16 at a time. */
async function firstTokenSurprisals(
  episodes: readonly EpisodeListing[],
  store: Pick<ArtifactStore, 'read'>,
): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  const todo = episodes.filter((e) => e.error === null && e.trajectoryUri !== null);
  for (let i = 0; i < todo.length; i += 16) {
    await Promise.all(
      todo.slice(i, i + 16).map(async (e) => {
        const text = await store.read(e.trajectoryUri!).catch((err: NodeJS.ErrnoException) => {
          // A trajectory removed from the store leaves its episode unmeasured; the report counts the measured ones.
          if (err.code === 'ENOENT') return null;
          throw err;
        });
        if (text) out.set(e.episodeId, firstTurnSurprisal(Trajectory.parse(JSON.parse(text.toString('utf8')))));
      }),
    );
  }
  return out;
}

function stepIndexHtml(step: number, episodes: EpisodeLink[], reportHref: string): string {
  const rows = episodes.map((e) => {
    const name = e.href
      ? `<a href="${escapeHtml(e.href.replace(/^episodes\//, ''))}">${escapeHtml(e.episodeId)}</a>`
      : escapeHtml(e.episodeId);
    return `<tr class="${e.reward === 1 && !e.error ? 'pass' : 'fail'}"><td>${name}</td><td>${e.error ? `error: ${escapeHtml(e.error)}` : e.reward}</td><td>${escapeHtml(e.summary)}</td></tr>`;
  });
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>Step ${step} episodes</title>`,
    '<style>body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1120px;padding:0 1rem;color:#1f2937}table{border-collapse:collapse;font-size:.85rem}td,th{border:1px solid #d1d5db;padding:.25rem .5rem;text-align:left}th{background:#f3f4f6}tr.fail td:nth-child(2){color:#b91c1c;font-weight:600}a{color:#1d4ed8}</style>',
    '</head><body>',
    `<nav><a href="${escapeHtml(reportHref)}">← campaign report</a></nav>`,
    `<h1>GRPO step ${step}: ${episodes.length} episodes</h1>`,
    '<p>One passed and one failed episode of each group have a page; every episode is in <code>finalstate episode show ID</code>.</p>',
    `<table><thead><tr><th>Episode</th><th>reward</th><th>summary</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`,
    '</body></html>',
    '',
  ].join('\n');
}
