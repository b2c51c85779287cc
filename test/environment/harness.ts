import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
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
