import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { builtInTaskDirs, domains } from '../../domains/index.js';
import { readTaskSet } from '../../environment/task-set.js';
import { loadConfig } from '../../workers/config.js';
import { ruleBreakingPlan, ruleBreakingProblem } from '../../runtime/demonstrations/rule-breaking.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import type { EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { uniqueName } from '../helpers/index.js';

// Every pack's rule-breaking paths, played as real oracle episodes on its shipped training tasks: each call must be
// one the tools accept, and the grader must reject the final state. Two tasks of every family that has a path.
const PER_FAMILY = 2;
const config = loadConfig();
let runtime: EpisodeRuntime;
const prefix = uniqueName('rule-breaking');

before(async () => {
  runtime = await createEpisodeRuntime(config);
});
after(async () => {
  await runtime.control.query('DELETE FROM episodes WHERE episode_id LIKE $1', [`${prefix}-%`]);
  await runtime.close();
});

for (const domain of domains.filter((d) => d.ruleBreakingPath)) {
  describe(domain.name, () => {
    const manifest = path.join(fromRoot(builtInTaskDirs[domain.name]!), `${domain.name}-train-mini.manifest.json`);
    const set = readTaskSet(manifest);
    const plan = ruleBreakingPlan(set.tasks, [domain], 1);
    const families = new Map<string, string[]>();
    for (const task of set.tasks)
      if (plan.has(task.id)) families.set(task.tags[0]!, [...(families.get(task.tags[0]!) ?? []), task.id]);

    test('states rule-breaking paths for at least three task families', () => {
      assert.ok(families.size >= 3, `families with a path: ${[...families.keys()].join(', ')}`);
    });

    for (const [family, ids] of families)
      test(`${family}: the tools accept every call and the grader rejects the final state`, async () => {
        const store = new EpisodeStore(runtime.control);
        for (const taskId of ids.slice(0, PER_FAMILY)) {
          const calls = plan.get(taskId)!;
          const request = EpisodeRequest.parse({
            episodeId: `${prefix}-${taskId}`,
            taskId,
            taskSet: set.manifestFile,
            trial: 0,
            policy: { kind: 'oracle', calls },
            user: { kind: 'scripted' },
            seed: 0,
          });
          await runtime.runner.run(request);
          const record = (await store.load(request.episodeId))!;
          assert.equal(ruleBreakingProblem(record, calls), undefined, `${taskId}: ${JSON.stringify(calls)}`);
        }
      });
  });
}
