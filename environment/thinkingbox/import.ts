import { createHash } from 'node:crypto';
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { projectRoot } from '../../core/paths.js';
import type { LoadedConfig } from '../../schemas/config.js';
import type { Split, TaskInput } from '../../schemas/task.js';
import { HydrateResponse, type HydratedThinkingBoxTask } from '../../schemas/thinkingbox.js';
import { writeTaskSet } from '../task-set.js';
import { thinkingBoxHome } from './home.js';
import { ThinkingBoxSidecar } from './sidecar.js';

/**
 * The clock field of a ThinkingBox task: unused (ThinkingBox's servers keep their own clock and its scenarios state
 * the date in their instructions), set to the business scenarios' "current date".
 */
const THINKINGBOX_NOW = '2025-10-01T13:00:00Z';

export interface ImportOptions {
  /** A ThinkingBox dataset folder (scenario/, agent/); default: thinkingbox-data/dataset of THINKINGBOX_HOME. */
  dataset?: string;
  /** Test-case files or folders (default: the dataset's test_case/). */
  inputs?: string[];
  /** A ThinkingBox test list (YAML) selecting tests by uid. */
  testList?: string;
  split: Split;
  /** Import this share of the tests (by a hash of their uid) as the eval split instead. */
  evalShare?: number;
  /** Leave out scenarios' `sources` (no Typesense here): their policy search answers that it is unavailable. */
  dropSources: boolean;
  /** The task set written: <dir>/<name>.jsonl and its manifest. */
  out: { dir: string; name: string };
}

export interface ImportReport {
  file: string;
  manifestFile: string;
  tasks: number;
  scenarios: Record<string, number>;
  withoutGolden: string[];
  droppedSources: string[];
}

/** A task id from ThinkingBox's uid "file.py:test": the file's stem and the test, in task-id characters. */
export function taskIdOf(uid: string): string {
  const [file, test] = uid.split(':');
  const clean = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  return `${clean(path.basename(file ?? uid, '.py'))}:${clean(test ?? '')}`.replace(/^[^A-Za-z0-9]+/, '');
}

/** A hydrated ThinkingBox test case as a finalstate task (schemas/task.ts with its `thinkingbox` part). */
export function taskOf(h: HydratedThinkingBoxTask, split: Split): TaskInput {
  const labels = Array.isArray(h.tags.labels) ? h.tags.labels.filter((l): l is string => typeof l === 'string') : [];
  return {
    id: taskIdOf(h.uid),
    domain: h.scenario,
    split,
    profile: 'full',
    tags: [`thinkingbox:${h.scenario}`, ...labels],
    query: h.query,
    userContext: h.userContext ?? '',
    now: THINKINGBOX_NOW,
    golden: h.golden,
    thinkingbox: {
      uid: h.uid,
      file: path.relative(projectRoot, h.file).startsWith('..') ? h.file : path.relative(projectRoot, h.file),
      testName: h.testName,
      scenario: h.scenario,
      systemMessages: h.systemMessages,
      builtinTools: h.builtinTools,
      toolOverrides: h.toolOverrides,
      availableTools: h.availableTools,
      serverConfig: h.serverConfig,
      droppedSources: h.droppedSources,
      maxUserSimTurns: h.maxUserSimTurns,
      maxAgentSimTurns: h.maxAgentSimTurns,
      testCode: h.testCode,
    },
  };
}

/** A test's split: `evalShare` of the tests, chosen by a hash of their uid (stable across imports), are eval. */
function splitOf(uid: string, options: Pick<ImportOptions, 'split' | 'evalShare'>): Split {
  if (options.evalShare === undefined) return options.split;
  const bucket = parseInt(createHash('sha256').update(uid).digest('hex').slice(0, 8), 16) / 0x1_0000_0000;
  return bucket < options.evalShare ? 'eval' : options.split;
}

/**
 * Read ThinkingBox test-case files and their scenarios with ThinkingBox's own hydrator (in its venv) and write them as
 * a finalstate task set that every command taking task sets accepts. A file ThinkingBox cannot read is an error
 * naming it and the test.
 */
export async function importThinkingBox(config: LoadedConfig, options: ImportOptions): Promise<ImportReport> {
  const home = thinkingBoxHome(config);
  const sidecar = new ThinkingBoxSidecar(home.python);
  try {
    const hydrated = await sidecar.request(
      {
        op: 'hydrate',
        dataset: path.resolve(options.dataset ?? home.dataset),
        ...(options.inputs ? { inputs: options.inputs.map((i) => path.resolve(i)) } : {}),
        testList: options.testList ? path.resolve(options.testList) : null,
        agent: 'think',
        dropSources: options.dropSources,
      },
      HydrateResponse,
    );
    if (hydrated.tasks.length === 0) throw new UserError('thinkingbox import: no test case found in the inputs');
    const history = hydrated.tasks.filter((t) => t.hasHistory).map((t) => t.uid);
    if (history.length)
      throw new UserError(
        `thinkingbox import: ${history.join(', ')} start from a prior history, which finalstate does not replay yet`,
      );
    const formatted = hydrated.tasks.filter((t) => t.formatQuery).map((t) => t.uid);
    if (formatted.length)
      throw new UserError(
        `thinkingbox import: ${formatted.join(', ')} set format_query (their query is filled in from the session's init result), which finalstate does not do yet`,
      );
    const written = writeTaskSet(
      options.out.dir,
      options.out.name,
      '1',
      hydrated.tasks.map((t) => taskOf(t, splitOf(t.uid, options))),
    );
    const scenarios: Record<string, number> = {};
    for (const t of hydrated.tasks) scenarios[t.scenario] = (scenarios[t.scenario] ?? 0) + 1;
    return {
      file: written.file,
      manifestFile: written.manifestFile,
      tasks: written.tasks.length,
      scenarios,
      withoutGolden: hydrated.tasks.filter((t) => t.golden.length === 0).map((t) => t.uid),
      droppedSources: [...new Set(hydrated.tasks.flatMap((t) => t.droppedSources))].sort(),
    };
  } finally {
    await sidecar.close();
  }
}
