import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { fromRoot } from '../../core/paths.js';
import { workflowsPath } from '../../workers/control.js';

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : [],
    );
}

/**
 * The workflow bundle, built once per content of dist/ (the workflows and what they import) and kept in the temp
 * directory, so test files share one webpack run instead of each bundling again (the machine has 2 cores).
 */
export async function sharedWorkflowBundle(): Promise<{ code: string }> {
  const hash = createHash('sha256');
  for (const file of ['workflows', 'stats', 'infra', 'schemas'].flatMap((d) => filesUnder(fromRoot('dist', d))).sort())
    hash.update(file).update(fs.readFileSync(file));
  const cached = path.join(os.tmpdir(), `finalstate-workflows-${hash.digest('hex').slice(0, 16)}.js`);
  if (fs.existsSync(cached)) return { code: fs.readFileSync(cached, 'utf8') };
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  // Bundles of older code are of no further use.
  for (const old of fs.readdirSync(os.tmpdir()).filter((f) => /^finalstate-workflows-[0-9a-f]{16}\.js$/.test(f)))
    fs.rmSync(path.join(os.tmpdir(), old), { force: true });
  fs.writeFileSync(`${cached}.${process.pid}`, code);
  fs.renameSync(`${cached}.${process.pid}`, cached);
  return { code };
}
