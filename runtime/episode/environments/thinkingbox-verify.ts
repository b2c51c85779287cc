import { randomBytes } from 'node:crypto';
import { mapLimited } from '../../../core/concurrency.js';
import { EpisodeLimits, EpisodeRequest } from '../../../schemas/episode.js';
import type { Task, ToolCall } from '../../../schemas/task.js';
import type { EpisodeRunner } from '../runner.js';

/** A tool call that changes state, told by its name (ThinkingBox's servers do not mark their read-only tools). */
const WRITE_TOOL =
  /(create|update|add|grant|schedule|reinstate|reset|cancel|assign|send|issue|process|refund|delete|remove|set_|approve|escalate|submit|book|modify|revoke|unlock|record|apply|allocate|provision|order|disable|enable|invalidate|close|reopen|transfer)/i;

const DEFAULT_AGENT_TURNS = EpisodeLimits.parse({}).maxAgentTurns;

export const isWriteCall = (call: ToolCall): boolean => WRITE_TOOL.test(call.tool);

export interface ThinkingBoxVerifyCounts {
  tasks: number;
  unverifiable: number;
  oracle: { passed: number; total: number };
  noop: { failed: number; total: number };
  mutations: { failedAsExpected: number; total: number; byKind: Record<string, { failed: number; total: number }> };
}

export interface ThinkingBoxVerifyReport extends ThinkingBoxVerifyCounts {
  problems: { taskId: string; agent: string; message: string }[];
  /** Tasks whose duplicated last write leaves the state as it was (an idempotent update): no mutation there. */
  duplicatesAbsorbed: string[];
  unverifiableTasks: string[];
}

/** One argument changed: a string gets a suffix, a number +1, a boolean flips (the first such argument). */
function altered(call: ToolCall): ToolCall | undefined {
  for (const [key, value] of Object.entries(call.arguments)) {
    let next: unknown;
    if (typeof value === 'string') next = `${value}-x`;
    else if (typeof value === 'number') next = value + 1;
    else if (typeof value === 'boolean') next = !value;
    else continue;
    return { tool: call.tool, arguments: { ...call.arguments, [key]: next } };
  }
  return undefined;
}

/** The mutated oracles of a task: drop its last write, alter one argument of it, duplicate it. */
export function mutationsOf(task: Task): { kind: string; calls: ToolCall[] }[] {
  const golden = task.golden;
  const last = golden
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => isWriteCall(c))
    .at(-1);
  if (!last) return [];
  const { c, i } = last;
  const out = [{ kind: 'drop_last_write', calls: golden.filter((_, j) => j !== i) }];
  const alt = altered(c);
  if (alt) out.push({ kind: 'alter_argument', calls: golden.map((g, j) => (j === i ? alt : g)) });
  out.push({ kind: 'duplicate_write', calls: [...golden.slice(0, i + 1), c, ...golden.slice(i + 1)] });
  return out;
}

/**
 * `tasks verify` for ThinkingBox tasks: each one played through the episode runner on ThinkingBox's own servers and
 * graded by its own test runner: the oracle (the golden calls through the agent loop) must pass, the no-op agent must
 * fail, and every mutated oracle must fail. A task without golden calls is reported as unverifiable.
 */
export async function verifyThinkingBoxTasks(
  runner: EpisodeRunner,
  sets: { manifestFile: string; tasks: Task[] }[],
  options: { concurrency?: number; onProgress?: (done: number) => void } = {},
): Promise<ThinkingBoxVerifyReport> {
  const run = randomBytes(4).toString('hex');
  const report: ThinkingBoxVerifyReport = {
    tasks: 0,
    unverifiable: 0,
    unverifiableTasks: [],
    oracle: { passed: 0, total: 0 },
    noop: { failed: 0, total: 0 },
    mutations: { failedAsExpected: 0, total: 0, byKind: {} },
    problems: [],
    duplicatesAbsorbed: [],
  };
  let plays = 0;
  const play = async (taskSet: string, task: Task, calls: ToolCall[], label: string) => {
    const outcome = await runner.run(
      EpisodeRequest.parse({
        episodeId: `verify-${run}-${++plays}-${label}-${task.id}`.replace(/[^A-Za-z0-9._:-]/g, '_'),
        taskId: task.id,
        taskSet,
        trial: 0,
        policy: { kind: 'oracle', calls },
        user: { kind: 'scripted' },
        seed: 0,
        // the oracle makes one call a turn: room for every golden call and its closing message
        limits: { maxAgentTurns: Math.max(DEFAULT_AGENT_TURNS, task.golden.length + 2) },
      }),
    );
    return outcome.reward;
  };
  const verifyOne = async (taskSet: string, task: Task) => {
    report.tasks++;
    if (task.golden.length === 0) {
      report.unverifiable++;
      report.unverifiableTasks.push(task.id);
      return;
    }
    report.oracle.total++;
    if ((await play(taskSet, task, task.golden, 'oracle')) === 1) report.oracle.passed++;
    else report.problems.push({ taskId: task.id, agent: 'oracle', message: 'the golden calls do not pass the test' });
    report.noop.total++;
    if ((await play(taskSet, task, [], 'noop')) === 0) report.noop.failed++;
    else report.problems.push({ taskId: task.id, agent: 'noop', message: 'doing nothing passes the test' });
    for (const m of mutationsOf(task)) {
      const passed = (await play(taskSet, task, m.calls, m.kind)) === 1;
      if (passed && m.kind === 'duplicate_write') {
        report.duplicatesAbsorbed.push(task.id);
        continue;
      }
      const kind = (report.mutations.byKind[m.kind] ??= { failed: 0, total: 0 });
      report.mutations.total++;
      kind.total++;
      if (!passed) {
        report.mutations.failedAsExpected++;
        kind.failed++;
      } else report.problems.push({ taskId: task.id, agent: m.kind, message: 'the mutated oracle passes the test' });
    }
  };
  const queue = sets.flatMap((s) => s.tasks.map((task) => ({ taskSet: s.manifestFile, task })));
  let done = 0;
  await mapLimited(queue, Math.max(1, options.concurrency ?? 2), async ({ taskSet, task }) => {
    await verifyOne(taskSet, task);
    options.onProgress?.(++done);
  });
  return report;
}
