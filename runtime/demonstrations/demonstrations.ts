import { mapLimited } from '../../core/concurrency.js';
import { contentHash } from '../../environment/canonical.js';
import type { DomainDefinition } from '../../environment/domain.js';
import { readTaskSet, writeTaskSet, type LoadedTaskSet } from '../../environment/task-set.js';
import { InfrastructureError } from '../../core/errors.js';
import type { Conversation } from '../../schemas/conversation.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import type { Task, ToolCall } from '../../schemas/task.js';
import { SftDemonstration } from '../../schemas/training.js';
import { EpisodeStore } from '../episode/episode-store.js';
import type { EpisodeRuntime } from '../episode/runtime.js';
import { renderPrompt, type ChatRenderer } from '../interpreter/renderer.js';
import { ruleBreakingProblem } from './rule-breaking.js';

/** Bump when what a demonstration contains changes for reasons the content hash below cannot see. */
export const DEMONSTRATION_FORMAT = 'finalstate-sft-demonstrations/2'; // 2: records keep tool-schema key order (json, not jsonb)

/** Demonstrations teach the tiny base model: training split, mini profile, nothing else. */
export const isDemonstrationTask = (task: Task): boolean => task.split === 'train' && task.profile === 'mini';

/**
 * One conversation as SFT text: exactly the renderer's text of the conversation, and the range of every assistant
 * turn's body including its end-of-turn marker (not the newline after it). The ranges come from rendering the
 * prefixes, so they hold for any renderer that is prefix-stable (ChatRenderer's contract), which this checks.
 */
export function renderDemonstration(renderer: ChatRenderer, conversation: Conversation): SftDemonstration {
  const text = renderer.renderConversation(conversation);
  const spans: [number, number][] = [];
  conversation.turns.forEach((turn, index) => {
    if (turn.role !== 'assistant' || turn.direct) return; // a tool's direct response is not the model's to learn
    const before = { ...conversation, turns: conversation.turns.slice(0, index) };
    const start = renderPrompt(renderer, before).length;
    const through = renderer.renderConversation({ ...conversation, turns: conversation.turns.slice(0, index + 1) });
    if (!text.startsWith(through) || !through.startsWith(renderPrompt(renderer, before))) {
      throw new Error(`${renderer.family}: rendering is not prefix-stable at turn ${index + 1}`);
    }
    const marker = renderer.endOfTurnMarkers.find((m) => through.trimEnd().endsWith(m));
    if (!marker)
      throw new Error(`${renderer.family}: assistant turn ${index + 1} does not end with an end-of-turn marker`);
    spans.push([start, through.trimEnd().length]);
  });
  return SftDemonstration.parse({ text, assistantSpans: spans });
}

/**
 * More training-split mini tasks from the domains' seeded generators, written as task sets under `dir`. The shipped
 * training set numbers its entities consecutively from one offset (ids 107919..108218), so a tiny model that saw only
 * those learns the leading id digits as constants instead of copying them from the request; generator seeds whose
 * offsets lie across the training split's number range (100000..499999) vary every digit. Training split only.
 */
export function generatedTrainingSets(
  domains: readonly DomainDefinition[],
  dir: string,
  seeds: readonly number[],
  count: number,
): LoadedTaskSet[] {
  return domains.flatMap((domain) =>
    seeds.map((seed) => {
      const written = writeTaskSet(
        dir,
        `${domain.name}-train-mini-seed${seed}-n${count}`,
        domain.version,
        domain.generateTasks({ seed, split: 'train', profile: 'mini', count }),
      );
      return readTaskSet(written.manifestFile);
    }),
  );
}

/** Everything a demonstration depends on besides the task: the domains' mini presentation and the renderer. */
export function demonstrationsKey(
  sets: readonly LoadedTaskSet[],
  domains: readonly DomainDefinition[],
  renderer: ChatRenderer,
  ruleBreaking?: ReadonlyMap<string, ToolCall[]>,
): string {
  return contentHash({
    format: DEMONSTRATION_FORMAT,
    renderer: renderer.family,
    // The planned paths of these tasks themselves, whatever code computes them.
    ...(ruleBreaking && ruleBreaking.size > 0
      ? {
          ruleBreaking: sets.flatMap((s) =>
            s.tasks.flatMap((t) => (ruleBreaking.has(t.id) ? [[t.id, ruleBreaking.get(t.id)]] : [])),
          ),
        }
      : {}),
    tasks: sets.flatMap((s) => s.tasks.filter(isDemonstrationTask).map((t) => t.id + ':' + contentHash(t))),
    domains: domains.map((d) => ({
      name: d.name,
      version: d.version,
      policy: d.policy.mini,
      tools: d.tools
        .filter((t) => d.profileTools.mini.includes(t.name))
        .map((t) => ({
          name: t.name,
          description: t.description,
          mini: t.miniDescription ?? null,
          result: t.miniResult?.toString() ?? null,
          handler: t.handler.toString(),
        })),
    })),
  });
}

export interface RenderedDemonstration {
  taskId: string;
  /** True when the episode played the pack's rule-breaking path instead of the golden calls. */
  ruleBreaking: boolean;
  /** The oracle episode whose stored transcript was rendered. */
  episodeId: string;
  demonstration: SftDemonstration;
}

export interface DemonstrationRun {
  demonstrations: RenderedDemonstration[];
  /** Golden oracle episodes that did not earn reward 1 (left out: a golden demonstration must be a correct solution). */
  failedTaskIds: string[];
  /** Planned rule-breaking paths that could not serve (a tool refused a call, or the grader accepted): demonstrated by their golden calls instead. */
  rejectedRuleBreaking: { taskId: string; problem: string }[];
}

/**
 * Runs the oracle episode of every training-split mini task of `sets` through the episode runtime (the same loop,
 * tools and interpreter as evaluation) and renders each stored transcript. Eval-split or full-profile tasks are
 * never run. `concurrency` episodes run at once.
 */
export async function oracleDemonstrations(
  runtime: EpisodeRuntime,
  renderer: ChatRenderer,
  sets: readonly LoadedTaskSet[],
  options: {
    maxTasks?: number;
    concurrency?: number;
    episodePrefix: string;
    /** Tasks demonstrated by a rule-breaking path instead of their golden calls (a ruleBreakingPlan). */
    ruleBreaking?: ReadonlyMap<string, ToolCall[]>;
    onEpisode?(done: number, total: number): void;
  },
): Promise<DemonstrationRun> {
  const jobs = sets.flatMap((set) => set.tasks.filter(isDemonstrationTask).map((task) => ({ set, task })));
  const chosen = options.maxTasks === undefined ? jobs : evenlySpaced(jobs, options.maxTasks);
  const plan = options.ruleBreaking ?? new Map<string, ToolCall[]>();
  const store = new EpisodeStore(runtime.control);
  const results: (RenderedDemonstration | null)[] = new Array(chosen.length).fill(null);
  const failedTaskIds: string[] = [];
  const rejectedRuleBreaking: DemonstrationRun['rejectedRuleBreaking'] = [];
  const runOracle = async (set: LoadedTaskSet, task: Task, calls?: ToolCall[]) => {
    const request = EpisodeRequest.parse({
      episodeId: `${options.episodePrefix}-${task.id}${calls ? '-rule-breaking' : ''}`,
      taskId: task.id,
      taskSet: set.manifestFile,
      trial: 0,
      policy: calls ? { kind: 'oracle', calls } : { kind: 'oracle' },
      user: { kind: 'scripted' },
      seed: 0,
    });
    await runtime.runner.run(request);
    const record = await store.load(request.episodeId);
    if (!record)
      throw new InfrastructureError(
        `episode ${request.episodeId} was run but its record is not in the control database`,
        'postgres',
      );
    return { episodeId: request.episodeId, record };
  };
  let done = 0;
  await mapLimited(chosen, Math.max(1, options.concurrency ?? 2), async ({ set, task }, index) => {
    const calls = plan.get(task.id);
    if (calls) {
      const broken = await runOracle(set, task, calls);
      const problem = ruleBreakingProblem(broken.record, calls);
      if (!problem) {
        results[index] = {
          taskId: task.id,
          ruleBreaking: true,
          episodeId: broken.episodeId,
          demonstration: renderDemonstration(renderer, broken.record.transcript),
        };
        options.onEpisode?.(++done, chosen.length);
        return;
      }
      rejectedRuleBreaking.push({ taskId: task.id, problem });
    }
    const golden = await runOracle(set, task);
    if (golden.record.outcome.reward === 1)
      results[index] = {
        taskId: task.id,
        ruleBreaking: false,
        episodeId: golden.episodeId,
        demonstration: renderDemonstration(renderer, golden.record.transcript),
      };
    else failedTaskIds.push(task.id);
    options.onEpisode?.(++done, chosen.length);
  });
  return {
    demonstrations: results.filter((d): d is RenderedDemonstration => d !== null),
    failedTaskIds,
    rejectedRuleBreaking,
  };
}

/** `count` items spread evenly over `items` (every task family stays represented in a small sample). */
function evenlySpaced<T>(items: readonly T[], count: number): T[] {
  if (count >= items.length) return [...items];
  return Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)]!);
}
