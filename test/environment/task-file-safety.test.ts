import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkFinalState } from '../../environment/grader.js';
import { AssertionQueryError, checkAssertions } from '../../environment/sql-assertions.js';
import { splitSqlStatements } from '../../core/sql-statements.js';
import { readTaskSet, TaskSetError, writeTaskSet } from '../../environment/task-set.js';
import type { Task } from '../../schemas/task.js';
import {
  escapingAssertion,
  fixtureEnvironment,
  fixtureTask,
  runCli,
  taskSetWithLines,
  uniqueEpisodeId,
  writeEmptyTaskSet,
} from './harness.js';

/** Task files are input, not code: assertions stay inside their read-only statement, big or empty files are errors. */
function issuesOf(read: () => unknown) {
  try {
    read();
  } catch (err) {
    if (err instanceof TaskSetError) return err.issues;
    throw err;
  }
  return assert.fail('expected a TaskSetError');
}

describe('task files are untrusted input', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-task-files-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const taskSetWith = (name: string, tasks: object[]) => taskSetWithLines(dir, name, tasks);

  it('an assertion with a second statement is a validation error naming file, line, task and field', async () => {
    const good = fixtureTask('cancel-O-1');
    const escape = { ...good, id: 'escape', assertions: [escapingAssertion] };
    const cte = {
      ...good,
      id: 'cte',
      assertions: [
        {
          description: 'writes',
          sql: 'WITH d AS (DELETE FROM audit_log RETURNING *) SELECT count(*) FROM d',
          expect: [],
        },
      ],
    };
    const file = taskSetWith('escape', [escape, cte]);
    const found = issuesOf(() => readTaskSet(file)).filter((i) => i.path === 'assertions[0].sql');
    assert.deepEqual(
      found.map((i) => [i.file, i.line, i.taskId]),
      [
        [file, 2, 'escape'],
        [file, 3, 'cte'],
      ],
    );
    assert.match(found[0]!.message, /must be one read-only SQL statement, found 2: the second starts "UPDATE orders/);
    assert.match(found[1]!.message, /must be read-only, but names DELETE/);
    const res = await runCli(['tasks', 'validate', file]);
    assert.equal(res.code, 2, res.stdout);
    assert.ok(
      res.stderr.includes(`${file}:2: task escape: assertions[0].sql: must be one read-only SQL statement`),
      res.stderr,
    );
  });

  it('the statement splitter ignores semicolons in strings, quoted identifiers, dollar quotes and comments', () => {
    const one = [
      "SELECT ';' AS a",
      'SELECT $x$ ; $x$',
      "SELECT E'\\';'",
      'SELECT "a;b" FROM t',
      '/* ; /* ; */ */ SELECT 1;',
      'SELECT 1; -- trailing ;',
      "SELECT 'it''s; fine'",
    ];
    for (const sql of one) assert.equal(splitSqlStatements(sql).length, 1, sql);
    assert.equal(splitSqlStatements("SELECT 1; SELECT ';'").length, 2);
  });

  it('grading runs an assertion that escaped validation as one read-only statement: the database is unchanged', async () => {
    const env = fixtureEnvironment();
    try {
      const good = fixtureTask('cancel-O-1');
      // built in code, past the schema, as a task that reached the grader some other way would be
      const hostile: Task = { ...good, assertions: [...good.assertions, escapingAssertion] };
      const episode = await env.backend.provision(uniqueEpisodeId('escape'), hostile);
      try {
        // refused as a malformed task (a syntax error: the extended protocol takes one statement), never graded
        await assert.rejects(checkFinalState(env.backend, env.expected, episode), (err: unknown) => {
          assert.ok(err instanceof AssertionQueryError, String(err));
          assert.match(
            err.message,
            /assertions\[1\] \(escapes\): the query fails: cannot insert multiple commands into a prepared statement/,
          );
          return true;
        });
        const total = await env.backend.transaction(
          episode,
          async (c) => (await c.query("SELECT total::text FROM orders WHERE order_id = 'O-1'")).rows[0].total,
        );
        assert.equal(total, '120.50', 'the UPDATE never ran');
        // a single writing statement is refused by the read-only transaction
        const writer: Task = {
          ...good,
          assertions: [
            {
              description: 'writes',
              sql: "UPDATE orders SET total = 1 WHERE order_id = 'O-1' RETURNING total",
              expect: [],
            },
          ],
        };
        await assert.rejects(
          env.backend.transaction(episode, (c) => checkAssertions(c, writer.assertions)),
          /read-only transaction/,
        );
      } finally {
        await env.backend.teardown(episode);
      }
    } finally {
      await env.close();
    }
  });

  it('a task-set file over the size limit is an error naming the file, before anything is read', async () => {
    const file = path.join(dir, 'huge.jsonl');
    // sparse: 600 MiB long, no disk used; the old reader died with ERR_STRING_TOO_LONG on it
    fs.writeFileSync(file, '');
    fs.truncateSync(file, 600 * 1024 * 1024);
    const res = await runCli(['tasks', 'validate', file]);
    assert.equal(res.code, 2, res.stderr);
    assert.ok(res.stderr.includes(`${file}: (task): 600 MiB, over the 256 MiB limit of a task-set file`), res.stderr);
    assert.doesNotMatch(res.stderr, /ERR_STRING_TOO_LONG/);
    // a device never ends: refused by its kind, not read
    assert.deepEqual(
      issuesOf(() => readTaskSet('/dev/zero')).map((i) => i.message),
      ['a task-set file must be a regular file, this is a device, pipe or socket'],
    );
  });

  it('reads line by line: a line over the per-task limit is reported by line, the other lines still checked', () => {
    const good = fixtureTask('cancel-O-1');
    const file = taskSetWith('long-line', [
      { ...good, id: 'long', query: 'x'.repeat(5000) },
      { ...good, id: 'bad-split', split: 'dev' },
    ]);
    const issues = issuesOf(() => readTaskSet(file, { maxLineBytes: 4096 }));
    assert.deepEqual(
      issues.filter((i) => i.line === 2).map((i) => i.message),
      [
        `line of ${(JSON.stringify({ ...good, id: 'long', query: 'x'.repeat(5000) }).length / 1024).toFixed(1)} KiB, over the 4 KiB limit of one task`,
      ],
    );
    assert.ok(
      issues.some((i) => i.line === 3 && i.path === 'split'),
      'line 3 was still parsed',
    );
    // a 2 MB line crosses the reader's 1 MiB chunks and keeps its multi-byte characters whole
    const wide = taskSetWith('wide', [{ ...good, id: 'wide', query: 'ü€'.repeat(400_000) }]);
    assert.deepEqual(
      issuesOf(() => readTaskSet(wide)).map((i) => [i.line, i.taskId, i.message]),
      [[2, 'wide', 'task is not listed in the manifest']],
    );
  });

  it('an empty task set is an error naming the file, and none is written', async () => {
    assert.throws(() => writeTaskSet(dir, 'none', '1', []), /no tasks to write/);
    assert.equal(fs.existsSync(path.join(dir, 'none.jsonl')), false);
    const file = writeEmptyTaskSet(dir, 'empty');
    assert.throws(
      () => readTaskSet(file),
      (err: TaskSetError) => err.issues.some((i) => i.file === file && /holds no tasks/.test(i.message)),
    );
    const res = await runCli(['tasks', 'validate', file, '--json']);
    assert.equal(res.code, 2, res.stdout);
    assert.match(res.stderr, /the task set holds no tasks/);
  });
});
