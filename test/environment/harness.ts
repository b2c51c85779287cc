import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { fromRoot } from '../../infra/paths.js';
import { loadConfig } from '../../infra/config.js';
import { EnvironmentBackend, type BackendOptions } from '../../environment/backend.js';
import { ExpectedStates } from '../../environment/expected-state.js';
import { DomainRegistry } from '../../environment/registry.js';
import { Task } from '../../schemas/task.js';
import { fixtureHelpdeskDomain } from '../fixtures/fixture-helpdesk-domain.js';

/** A backend over the real local PostgreSQL with the test-fixture domain registered, plus a private cache dir. */
export function fixtureEnvironment(options: BackendOptions = {}) {
  const config = loadConfig();
  const registry = new DomainRegistry([fixtureHelpdeskDomain]);
  const backend = new EnvironmentBackend(config, registry, options);
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-expected-'));
  const expected = new ExpectedStates(backend, cacheDir);
  return {
    config, registry, backend, expected, cacheDir,
    async close() {
      await backend.close();
      fs.rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

export function fixtureTasks(split: 'train' | 'eval' = 'train', profile: 'full' | 'mini' = 'full'): Task[] {
  return fixtureHelpdeskDomain.generateTasks({ seed: 1, split, profile, count: 100 }).map((t) => Task.parse(t));
}

export function fixtureTask(suffix: string, profile: 'full' | 'mini' = 'full'): Task {
  const task = fixtureTasks('train', profile).find((t) => t.id.endsWith(suffix));
  if (!task) throw new Error(`no fixture task ending in ${suffix}`);
  return task;
}

/** Unique per test run, so parallel runs on the shared cluster never collide. */
export const uniqueEpisodeId = (label: string) => `test-${label}-${randomUUID()}`;

/** The compiled fixture pack, loadable by a `finalstate` subprocess through FINALSTATE_DOMAIN_MODULES. */
export const fixtureModule = fromRoot('dist', 'test', 'fixtures', 'fixture-helpdesk-domain.js');

/** Run the real CLI in a subprocess with the fixture pack registered. */
export function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [fromRoot('bin', 'finalstate.js'), ...args], { env: { ...process.env, FINALSTATE_DOMAIN_MODULES: fixtureModule }, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
