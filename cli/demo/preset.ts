import fs from 'node:fs';
import path from 'node:path';
import { contentHash } from '../../environment/canonical.js';
import type { LoadedConfig } from '../../schemas/config.js';
import { UserError } from '../../core/errors.js';
import { readJsonConfig } from '../../workers/json-config.js';
import { fromRoot } from '../../core/paths.js';
import { CampaignConfig, ReprobeConfig, type TaskSource } from '../../schemas/campaign.js';
import { DemoPreset } from '../../schemas/demo.js';
import type { TaskQueues } from '../../schemas/pipeline.js';
import { EpisodeLimits } from '../../schemas/episode.js';
import { DEFAULT_CHAT_FAMILY, type PolicyClientConfig } from '../../schemas/clients.js';

export const PRESET_DIR = fromRoot('cli', 'demo', 'presets');

/** A preset by name (cli/demo/presets/<name>.json) or by path to a copy the user edited. */
export function loadPreset(nameOrFile: string): { preset: DemoPreset; file: string } {
  const file = /[/\\]|\.json$/.test(nameOrFile)
    ? path.resolve(nameOrFile)
    : path.join(PRESET_DIR, `${nameOrFile}.json`);
  if (!fs.existsSync(file)) {
    const known = fs
      .readdirSync(PRESET_DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/\.json$/, ''));
    throw new UserError(
      `finalstate demo: no preset ${JSON.stringify(nameOrFile)} (known: ${known.join(', ')}; or give the path of a preset file)`,
    );
  }
  return { preset: readJsonConfig(file, DemoPreset, 'demo preset'), file };
}

/**
 * The preset with re-probing set from the command line (`demo --reprobe-every N [--reprobe-n M]`), the preset file
 * untouched. The campaign config differs, so the derived campaign id does too: a frozen-pool run and a re-probing run
 * of the same preset are two campaigns from the same base model.
 */
export function withReprobe(preset: DemoPreset, reprobe: { everySteps?: number; n?: number }): DemoPreset {
  if (reprobe.everySteps === undefined) {
    if (reprobe.n !== undefined) throw new UserError('finalstate demo: --reprobe-n needs --reprobe-every');
    return preset;
  }
  const parsed = ReprobeConfig.parse({ ...preset.campaign.reprobe, ...reprobe });
  return { ...preset, campaign: { ...preset.campaign, reprobe: parsed } };
}

/**
 * The campaign id a preset and base model give: the same config always resumes the same campaign. Only what shapes
 * the campaign counts; how fast this machine serves it (batching, threads, episode concurrency) may change on resume.
 */
export function derivedCampaignId(preset: DemoPreset, baseModelHash: string): string {
  const { maxBatchSize: _batch, batchWaitMs: _wait, threads: _threads, ...server } = preset.policyServer;
  const { episodeConcurrency: _concurrency, description: _description, unfinished: _criterion, ...shaping } = preset;
  return `demo-${preset.name}-${contentHash({ ...shaping, policyServer: server, baseModelHash }).slice(0, 10)}`;
}

/**
 * Which run of a derived id is current: `--fresh` starts run n+1 with id `<derived>-r<n+1>`. Kept in
 * <dataDir>/demo/<derived>.json so that the plain command resumes the latest run.
 */
export function currentCampaignId(config: LoadedConfig, derived: string, fresh: boolean): string {
  const file = path.join(config.dataPath, 'demo', `${derived}.json`);
  const previous = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { run: number }).run : 1;
  const run = fresh && fs.existsSync(file) ? previous + 1 : fresh ? 2 : previous;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ run })}\n`);
  return run === 1 ? derived : `${derived}-r${run}`;
}

export function demoQueues(campaignId: string): TaskQueues {
  return { control: `${campaignId}.control`, episodes: `${campaignId}.episodes`, gpu: `${campaignId}.gpu` };
}

export const SERVED_MODEL_NAME = 'policy';

/**
 * The conditions every episode of a preset runs under: its limits and its sampling. The campaign (probe, rollouts and
 * evaluations), `finalstate model pass-rate --preset` and `finalstate eval --preset` all take them from here, so one
 * checkpoint is never measured under two sets of conditions.
 */
export function presetConditions(preset: DemoPreset): {
  limits: EpisodeLimits;
  sampling: PolicyClientConfig['sampling'];
} {
  return {
    limits: EpisodeLimits.parse(preset.campaign.limits),
    sampling: { maxTokens: preset.sampling.maxTokens, temperature: preset.sampling.temperature, topP: 1, stop: [] },
  };
}

/** The full campaign config of a preset: its campaign part plus the demo's own policy server, base model and queues. */
export function campaignConfigOf(preset: DemoPreset, campaignId: string, baseModelDir: string): CampaignConfig {
  const { campaign } = preset;
  // Preset task sets are named relative to the project, wherever the command runs from.
  const resolved = (source: TaskSource): TaskSource => ({
    ...source,
    taskSet:
      path.isAbsolute(source.taskSet) || source.taskSet.startsWith('file:') ? source.taskSet : fromRoot(source.taskSet),
  });
  return CampaignConfig.parse({
    ...campaign,
    tasks: { train: resolved(campaign.tasks.train), eval: resolved(campaign.tasks.eval) },
    campaignId,
    policy: {
      kind: 'served',
      client: {
        baseUrl: `http://127.0.0.1:${preset.policyServer.port}`,
        model: SERVED_MODEL_NAME,
        serverKind: preset.policyServer.engine,
        family: DEFAULT_CHAT_FAMILY,
        timeoutMs: 300_000,
        sampling: presetConditions(preset).sampling,
      },
    },
    update: { ...campaign.update, baseModel: baseModelDir },
    taskQueues: demoQueues(campaignId),
  });
}
