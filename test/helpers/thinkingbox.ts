import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromRoot } from '../../core/paths.js';
import { importThinkingBox } from '../../environment/thinkingbox/import.js';
import * as thinkingbox from '../../infra/stack/thinkingbox.js';
import type { LoadedConfig } from '../../schemas/config.js';

/** The project's own ThinkingBox-format tasks (written over the five business scenarios of thinkingbox-data). */
export const PROJECT_THINKINGBOX_TESTS = fromRoot('tasks', 'thinkingbox', 'test_case');

/**
 * Why the ThinkingBox tests cannot run here, or false when they can. CI sets FINALSTATE_THINKINGBOX=required
 * (.ci/run), and there a missing ThinkingBox is a failure, never a skip.
 */
export function thinkingBoxSkip(config: LoadedConfig): string | false {
  if (thinkingbox.isConfigured(config)) return false;
  const why =
    'ThinkingBox is not configured here: set THINKINGBOX_HOME (or have ../shared/thinkingbox) and run npm run setup';
  if (process.env.FINALSTATE_THINKINGBOX === 'required') throw new Error(`FINALSTATE_THINKINGBOX=required: ${why}`);
  return why;
}

/** Import the project's ThinkingBox tasks (or `inputs`) into a fresh folder; returns the manifest's path. */
export async function importProjectTasks(config: LoadedConfig, inputs = [PROJECT_THINKINGBOX_TESTS]): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-tb-'));
  const report = await importThinkingBox(config, {
    inputs,
    split: 'train',
    dropSources: true,
    out: { dir, name: 'thinkingbox-train' },
  });
  return report.manifestFile;
}
