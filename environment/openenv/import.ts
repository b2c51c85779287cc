import { mapLimited } from '../../core/concurrency.js';
import { UserError } from '../../core/errors.js';
import { OpenEnvTaskPart, type OpenEnvTaskPartInput } from '../../schemas/openenv-task.js';
import type { Split, TaskInput } from '../../schemas/task.js';
import { writeTaskSet } from '../task-set.js';
import { OpenEnvBridge } from './bridge.js';
import { readOpenEnvToken } from './token.js';

/** The clock field of an OpenEnv task: unused (the environment keeps its own clock). */
const OPENENV_NOW = '2025-01-01T00:00:00Z';

export interface OpenEnvImportOptions {
  /** The task part every task shares (url, token, messages, fields, passReward, timeouts); its reset is per task. */
  part: Omit<OpenEnvTaskPartInput, 'reset'>;
  /** The environment's task ids (reset {task_id}), or seeds to draw (reset {seed}: from, from + 1, …). */
  draw: { taskIds: string[] } | { seeds: number; from: number };
  domain: string;
  split: Split;
  /** The task set written: <dir>/<name>.jsonl and its manifest. */
  out: { dir: string; name: string };
  /** How many resets run at once while the tasks are checked (default 4). */
  concurrency?: number;
  /** A bridge to reset through (left open); default: one of its own, closed at the end. */
  bridge?: OpenEnvBridge;
}

export interface OpenEnvImportReport {
  file: string;
  manifestFile: string;
  tasks: number;
  url: string;
  /** The environment's task per imported task, where its reset observation names one (`task_id`). */
  drawn: Record<string, string>;
  /** Imported tasks whose reset drew an environment task another one drew too (seeds that collide). */
  sameTask: string[][];
}

/** A finalstate task id from the environment's task id or seed: the domain, then it, in task-id characters. */
function taskIdOf(domain: string, key: string): string {
  return `${domain}:${key}`.replace(/[^A-Za-z0-9._:-]/g, '_').replace(/^[^A-Za-z0-9]+/, '');
}

/**
 * Write a task set whose tasks play on an environment served over OpenEnv (their `openenv` part): one task per task id
 * or seed. Each task is reset once on the server first, through OpenEnv's own client: the server answers, takes the
 * reset kwargs and shows the user's first message (kept as the task's `query`, for people: an episode plays the
 * observation of its own reset). A server that cannot be reached, or a task it does not play, is a UserError naming it.
 */
export async function importOpenEnv(options: OpenEnvImportOptions): Promise<OpenEnvImportReport> {
  const resets: { key: string; reset: Record<string, unknown> }[] =
    'taskIds' in options.draw
      ? options.draw.taskIds.map((id) => ({ key: id, reset: { task_id: id } }))
      : Array.from({ length: options.draw.seeds }, (_, i) => {
          const seed = (options.draw as { from: number }).from + i;
          return { key: `seed-${seed}`, reset: { seed } };
        });
  if (resets.length === 0) throw new UserError('finalstate tasks import-openenv: no task id or seed to import');
  const checked = OpenEnvTaskPart.safeParse({ ...options.part, reset: resets[0]!.reset });
  if (!checked.success) {
    const [issue] = checked.error.issues;
    throw new UserError(`finalstate tasks import-openenv: ${issue!.path.join('.') || 'part'}: ${issue!.message}`);
  }
  const part = checked.data;
  const bridge = options.bridge ?? new OpenEnvBridge();
  try {
    const seen = await mapLimited(resets, options.concurrency ?? 4, async ({ key, reset }) => {
      const where = `${part.url} (reset ${JSON.stringify(reset)})`;
      const token = readOpenEnvToken(part, 'finalstate tasks import-openenv');
      let opened;
      try {
        opened = await bridge.open({
          url: part.url,
          ...(token !== undefined ? { token } : {}),
          reset,
          connectTimeoutSeconds: part.connectTimeoutSeconds,
          stepTimeoutSeconds: part.stepTimeoutSeconds,
        });
      } catch (err) {
        throw new UserError(`finalstate tasks import-openenv: ${where}: ${(err as Error).message}`);
      }
      await bridge.closeSession(opened.session);
      const observation = opened.result.observation;
      const prompt = observation[part.promptField];
      if (typeof prompt !== 'string' || prompt.trim() === '')
        throw new UserError(
          `finalstate tasks import-openenv: ${where}: the reset observation has no text in "${part.promptField}" (it has ${Object.keys(observation).join(', ') || 'nothing'}): pass --prompt-field`,
        );
      if (opened.result.done)
        throw new UserError(`finalstate tasks import-openenv: ${where}: the reset came back done`);
      return { key, reset, prompt, drawn: typeof observation.task_id === 'string' ? observation.task_id : undefined };
    });
    const tasks: TaskInput[] = seen.map(({ key, reset, prompt }) => ({
      id: taskIdOf(options.domain, key),
      domain: options.domain,
      split: options.split,
      profile: 'full',
      tags: [`openenv:${options.domain}`],
      query: prompt,
      userContext: '',
      now: OPENENV_NOW,
      golden: [],
      openenv: { ...options.part, reset },
    }));
    const written = writeTaskSet(options.out.dir, options.out.name, '1', tasks);
    const drawn = Object.fromEntries(
      seen.flatMap((s) => (s.drawn ? [[taskIdOf(options.domain, s.key), s.drawn] as const] : [])),
    );
    const byDrawn = new Map<string, string[]>();
    for (const [task, env] of Object.entries(drawn)) byDrawn.set(env, [...(byDrawn.get(env) ?? []), task]);
    return {
      file: written.file,
      manifestFile: written.manifestFile,
      tasks: written.tasks.length,
      url: part.url,
      drawn,
      sameTask: [...byDrawn.values()].filter((ids) => ids.length > 1),
    };
  } finally {
    if (!options.bridge) await bridge.close();
  }
}
