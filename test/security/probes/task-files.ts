import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkFinalState, finalStateHolds } from '../../../environment/grader.js';
import type { Task } from '../../../schemas/task.js';
import {
  escapingAssertion,
  fixtureEnvironment,
  fixtureTask,
  runCli,
  taskSetWithLines,
  uniqueEpisodeId,
  writeEmptyTaskSet,
} from '../../environment/harness.js';
import type { ProbeResult, SecurityProbe } from '../probe.js';

/** `finalstate tasks validate` on a file that `write` makes in a fresh directory: held when it exits 2 naming what `expect` matches. */
async function validateRefuses(
  attempt: string,
  write: (dir: string) => string,
  expect: (file: string) => string,
): Promise<ProbeResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-probe-tasks-'));
  try {
    const file = write(dir);
    const res = await runCli(['tasks', 'validate', file]);
    const wanted = expect(file);
    const line = res.stderr.split('\n').find((l) => l.includes(wanted));
    return {
      attempt,
      outcome: `exit ${res.code}: ${(line ?? res.stderr.trim().split('\n').pop() ?? '').trim().replace(dir, '<dir>')}`,
      held: res.code === 2 && line !== undefined,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const validation: SecurityProbe = {
  area: 'task-files',
  name: 'tasks validate refuses hostile task files, naming file and line',
  run: async () => [
    await validateRefuses(
      'validate a 600 MiB task-set file (sparse)',
      (dir) => {
        const file = path.join(dir, 'huge.jsonl');
        fs.writeFileSync(file, '');
        fs.truncateSync(file, 600 * 1024 * 1024);
        return file;
      },
      (file) => `${file}: (task): 600 MiB, over the 256 MiB limit of a task-set file`,
    ),
    await validateRefuses(
      'validate a task whose assertion is `COMMIT; UPDATE orders …` (a second statement)',
      (dir) =>
        taskSetWithLines(dir, 'escape', [
          { ...fixtureTask('cancel-O-1'), id: 'escape', assertions: [escapingAssertion] },
        ]),
      (file) => `${file}:2: task escape: assertions[0].sql: must be one read-only SQL statement`,
    ),
    await validateRefuses(
      'validate a task set with a line of malformed JSON',
      (dir) => {
        const file = taskSetWithLines(dir, 'malformed', []);
        fs.appendFileSync(file, '{"id": "half-written", "domain": \n');
        return file;
      },
      (file) => `${file}:2: (task): not valid JSON`,
    ),
    await validateRefuses(
      'validate an empty task set (blank lines, a manifest listing no task)',
      (dir) => writeEmptyTaskSet(dir, 'empty'),
      (file) => `${file}: (task): the task set holds no tasks`,
    ),
  ],
};

const grading: SecurityProbe = {
  area: 'task-files',
  name: 'an assertion cannot escape its read-only statement at grading time',
  run: async () => {
    const env = fixtureEnvironment();
    try {
      const good = fixtureTask('cancel-O-1');
      // past the schema, as if the task had reached the grader some other way
      const hostile: Task = { ...good, assertions: [escapingAssertion] };
      const episode = await env.backend.provision(uniqueEpisodeId('probe-assert'), hostile);
      try {
        const refused = await checkFinalState(env.backend, env.expected, episode).then(
          (check) => `graded (final state holds: ${finalStateHolds(check)})`,
          (err: Error) => `${err.name}: ${err.message}`,
        );
        const total = await env.backend.transaction(
          episode,
          async (c) => (await c.query("SELECT total::text FROM orders WHERE order_id = 'O-1'")).rows[0].total as string,
        );
        return [
          {
            attempt: 'grade an episode whose assertion is `COMMIT; UPDATE orders SET total = 999 …`',
            outcome: `${refused}; order O-1 total is ${total}`,
            held: refused.startsWith('AssertionQueryError') && total === '120.50',
          },
        ];
      } finally {
        await env.backend.teardown(episode);
      }
    } finally {
      await env.close();
    }
  },
};

const probes: SecurityProbe[] = [validation, grading];
export default probes;
