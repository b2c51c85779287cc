import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../workers/config.js';
import { UserError } from '../../core/errors.js';
import { episodeView } from '../../runtime/episode/audit/episode-view.js';
import { renderEpisodeHtml } from '../../runtime/episode/audit/render-html.js';
import { renderEpisodeText } from '../../runtime/episode/audit/render-text.js';
import { EpisodeStore, type EpisodeFilter } from '../../runtime/episode/episode-store.js';
import { FinishReason } from '../../schemas/episode.js';
import { renderText } from '../../stats/tables/table.js';
import { parse, printJson, type Command } from '../command.js';
import { integerOption } from '../number-option.js';
import { controlPool } from '../../workers/stores.js';

const usage = `finalstate episode show ID [--json] [--full] [--html FILE]
finalstate episode list [--campaign ID] [--step N] [--task ID] [--trial N] [--reward 0|1]
                        [--finish-reason REASON] [--limit N] [--json]

  show: one episode from the control database: the conversation with each tool call, its arguments and what the
        agent saw; the final-state diff by table, row and column; the assertions and rubric verdicts; reward, finish
        reason, timings, cost, the policy version of each turn and where a retried attempt resumed. --json prints
        the stored EpisodeRecord; --full prints long texts whole; --html FILE writes the episode page.
  list: stored episodes with their summary line, filtered (finish reasons: ${FinishReason.options.join(', ')}).`;

async function withStore<T>(run: (store: EpisodeStore) => Promise<T>): Promise<T> {
  const pool = controlPool(loadConfig(), 1);
  try {
    return await run(new EpisodeStore(pool));
  } catch (err) {
    if ((err as { code?: string }).code === '42P01')
      throw new UserError(
        'finalstate episode: the control database has no episodes table yet (no episode worker has run against it)',
      );
    throw err;
  } finally {
    await pool.end();
  }
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parse('episode show', argv, {
    full: { type: 'boolean', default: false },
    html: { type: 'string' },
  });
  if (values.help) return (void console.log(usage), 0);
  if (positionals.length !== 1)
    throw new UserError(`finalstate episode show: expected one episode ID, got ${positionals.length}\n\n${usage}`);
  const id = positionals[0]!;
  const found = await withStore((store) => store.loadWithTime(id));
  if (!found)
    throw new UserError(
      `finalstate episode show: no episode ${JSON.stringify(id)} in the control database (see \`finalstate episode list\`)`,
    );
  const view = episodeView(found.record, found.storedAt);
  if (values.html) {
    fs.mkdirSync(path.dirname(path.resolve(values.html)), { recursive: true });
    fs.writeFileSync(values.html, renderEpisodeHtml(view));
  }
  if (values.json) printJson(found.record);
  else
    process.stdout.write(
      renderEpisodeText(view, { full: values.full }) + (values.html ? `\npage: ${path.resolve(values.html)}\n` : ''),
    );
  return 0;
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parse('episode list', argv, {
    campaign: { type: 'string' },
    step: { type: 'string' },
    task: { type: 'string' },
    trial: { type: 'string' },
    reward: { type: 'string' },
    'finish-reason': { type: 'string' },
    limit: { type: 'string' },
  });
  if (values.help) return (void console.log(usage), 0);
  if (positionals.length)
    throw new UserError(`finalstate episode list: unexpected argument ${JSON.stringify(positionals[0])}\n\n${usage}`);
  const reward = values.reward;
  if (reward !== undefined && reward !== '0' && reward !== '1')
    throw new UserError(`finalstate episode list: --reward must be 0 or 1, got ${JSON.stringify(reward)}`);
  const finish = values['finish-reason'];
  if (finish !== undefined && !FinishReason.safeParse(finish).success)
    throw new UserError(
      `finalstate episode list: --finish-reason must be one of ${FinishReason.options.join(', ')}, got ${JSON.stringify(finish)}`,
    );
  const filter: EpisodeFilter = {
    ...(values.campaign !== undefined ? { campaignId: values.campaign } : {}),
    ...(values.task !== undefined ? { taskId: values.task } : {}),
    ...(reward !== undefined ? { reward: Number(reward) as 0 | 1 } : {}),
    ...(finish !== undefined ? { finishReason: finish as FinishReason } : {}),
  };
  const step = integerOption(values.step, 'step', 'episode list', 0);
  const trial = integerOption(values.trial, 'trial', 'episode list', 0);
  const limit = integerOption(values.limit, 'limit', 'episode list', 1);
  if (step !== undefined) filter.step = step;
  if (trial !== undefined) filter.trial = trial;
  if (limit !== undefined) filter.limit = limit;
  const episodes = await withStore((store) => store.list(filter));
  if (values.json) printJson(episodes);
  else if (episodes.length === 0) console.log('no episodes match');
  else
    console.log(
      renderText({
        id: 'episodes',
        title: `${episodes.length} episode${episodes.length === 1 ? '' : 's'}`,
        headers: ['episode', 'step', 'reward', 'finish', 'summary'],
        rows: episodes.map((e) => [
          e.episodeId,
          e.step === null ? '—' : String(e.step),
          e.error ? `— (${e.error})` : String(e.reward),
          e.finishReason,
          e.summary ?? '',
        ]),
        leftColumns: [0, 3, 4],
      }),
    );
  return 0;
}

export const episodeCommand: Command = {
  name: 'episode',
  summary: 'show one episode (conversation, tool calls, graded diff) or list episodes',
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'show') return show(rest);
    if (sub === 'list') return list(rest);
    if (sub === undefined || sub === '--help' || sub === '-h') return (void console.log(usage), 0);
    throw new UserError(`finalstate episode: unknown subcommand ${JSON.stringify(sub)} (show, list)\n\n${usage}`);
  },
};
