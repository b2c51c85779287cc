import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTaskSet, readTaskSets, TaskSetError, writeTaskSet } from '../../environment/task-set.js';
import { verifyTasks } from '../../environment/verify.js';
import { fixtureEnvironment, fixtureTasks, runCli } from './harness.js';

describe('task sets and the tasks CLI (real backends, fixture pack)', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-tasks-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('generate writes <domain>-<split>-<profile>.jsonl with a manifest of ids and content hashes', async () => {
    const res = await runCli(['tasks', 'generate', '--dir', dir, '--domain', 'fixture_helpdesk', '--json']);
    assert.equal(res.code, 0, res.stderr);
    const files = fs.readdirSync(dir).sort();
    assert.deepEqual(files, [
      'fixture_helpdesk-eval-full.jsonl',
      'fixture_helpdesk-eval-full.manifest.json',
      'fixture_helpdesk-eval-mini.jsonl',
      'fixture_helpdesk-eval-mini.manifest.json',
      'fixture_helpdesk-train-full.jsonl',
      'fixture_helpdesk-train-full.manifest.json',
      'fixture_helpdesk-train-mini.jsonl',
      'fixture_helpdesk-train-mini.manifest.json',
    ]);
    const set = readTaskSet(path.join(dir, 'fixture_helpdesk-train-full.jsonl'));
    assert.equal(set.tasks.length, 5);
    assert.equal(set.manifest.tasks.length, 5);
    assert.match(set.manifest.tasks[0]!.sha256, /^[0-9a-f]{64}$/);
    const viaManifest = readTaskSet(path.join(dir, 'fixture_helpdesk-train-full.manifest.json'));
    assert.deepEqual(viaManifest.tasks, set.tasks);
  });

  it('list --json prints id, domain, split, profile and tags, with filters', async () => {
    const res = await runCli(['tasks', 'list', '--dir', dir, '--split', 'eval', '--profile', 'mini', '--json']);
    assert.equal(res.code, 0, res.stderr);
    const rows = JSON.parse(res.stdout);
    assert.deepEqual(
      rows.map((r: { id: string }) => r.id),
      ['fixture-eval-mini-cancel-O-4', 'fixture-eval-mini-refuse-shipped', 'fixture-eval-mini-hold-ticket'],
    );
    assert.deepEqual(Object.keys(rows[0]), ['id', 'domain', 'split', 'profile', 'tags']);
    const shown = await runCli(['tasks', 'show', 'fixture-eval-mini-refuse-shipped', '--dir', dir, '--json']);
    assert.equal(JSON.parse(shown.stdout).golden[0].tool, 'get_order');
  });

  it('validate replays the golden calls and accepts a good file', async () => {
    const res = await runCli(['tasks', 'validate', path.join(dir, 'fixture_helpdesk-train-full.jsonl'), '--json']);
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(JSON.parse(res.stdout), {
      file: path.join(dir, 'fixture_helpdesk-train-full.jsonl'),
      valid: true,
      tasks: 5,
    });
  });

  it('validate names file, line, task id and field path for every bad task, and loads nothing', async () => {
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-bad-'));
    try {
      const base = fixtureTasks('train', 'full');
      const good = base[0]!;
      const tasks = [
        { ...good, id: 'bad-table', init: { upsert: { warehouses: [{ id: 1 }] }, delete: {} } },
        {
          ...good,
          id: 'bad-column',
          init: { upsert: { customers: [{ customer_id: 'C-1', shoe_size: 44 }] }, delete: {} },
        },
        { ...good, id: 'bad-tool', golden: [{ tool: 'teleport_order', arguments: {} }] },
        { ...good, id: 'bad-arg-type', golden: [{ tool: 'get_order', arguments: { order_id: 17 } }] },
        {
          ...good,
          id: 'bad-value-type',
          init: { upsert: { orders: [{ order_id: 'O-1', total: 'lots' }] }, delete: {} },
        },
        {
          ...good,
          id: 'bad-golden',
          golden: [{ tool: 'cancel_order', arguments: { order_id: 'O-2', reason: 'fraud' } }],
        },
        {
          ...good,
          id: 'bad-mini-length',
          profile: 'mini' as const,
          golden: Array(4).fill({ tool: 'get_order', arguments: { order_id: 'O-1' } }),
        },
        good,
      ];
      const { file } = writeTaskSet(bad, 'bad-set', '1', tasks);
      // a duplicate id and a wrong zod type, added after the manifest was written
      fs.appendFileSync(
        file,
        `${JSON.stringify({ ...good })}\n${JSON.stringify({ ...good, id: 'bad-split', split: 'dev' })}\n`,
      );
      const res = await runCli(['tasks', 'validate', file]);
      assert.equal(res.code, 2, res.stdout);
      const expectLines = [
        `${file}:9: task ${good.id}: id: duplicate task id (first on line 8)`,
        `${file}:10: task bad-split: split:`,
      ];
      for (const line of expectLines) assert.ok(res.stderr.includes(line), `missing ${line} in:\n${res.stderr}`);
      assert.throws(() => readTaskSet(file), TaskSetError);
      assert.throws(() => readTaskSets(bad), TaskSetError, 'nothing partially loaded');

      // the same tasks with a correct manifest: the domain-level problems, each located
      fs.rmSync(bad, { recursive: true, force: true });
      const { file: file2 } = writeTaskSet(bad, 'bad-set', '1', tasks);
      const res2 = await runCli(['tasks', 'validate', file2]);
      assert.equal(res2.code, 2, res2.stdout);
      for (const line of [
        `${file2}:1: task bad-table: init.upsert.warehouses: unknown table warehouses`,
        `${file2}:2: task bad-column: init.upsert.customers[0].shoe_size: unknown column shoe_size of table customers`,
        `${file2}:3: task bad-tool: golden[0].tool: unknown tool teleport_order`,
        `${file2}:4: task bad-arg-type: golden[0].arguments.order_id: Invalid input: expected string, received number`,
        `${file2}:5: task bad-value-type: init.upsert.orders[0].total: expected a number for numeric column, got "lots"`,
        `${file2}:6: task bad-golden: golden[0]: cancel_order failed: order O-2 is shipped and cannot be cancelled`,
        `${file2}:7: task bad-mini-length: golden: a mini task takes 1 to 3 tool calls, this one 4`,
      ])
        assert.ok(res2.stderr.includes(line), `missing ${line} in:\n${res2.stderr}`);
      assert.ok(!res2.stderr.includes(`task ${good.id}:`), 'the good task is not reported');
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
  });

  it('verify --json: the oracle passes all, the no-op only read-only tasks, every mutation fails with a matching diff class', async () => {
    const res = await runCli(['tasks', 'verify', '--dir', dir, '--split', 'train', '--concurrency', '3', '--json']);
    assert.equal(res.code, 0, res.stderr);
    const report = JSON.parse(res.stdout);
    assert.deepEqual(Object.keys(report), ['tasks', 'oracle', 'noop', 'mutations', 'byDomain']);
    assert.equal(report.tasks, 9);
    assert.deepEqual(report.oracle, { passed: 9, total: 9 });
    assert.deepEqual(report.noop, { passed: 2, readOnly: 2 });
    assert.equal(report.mutations.failedAsExpected, report.mutations.total);
    assert.ok(report.mutations.total >= 14, `mutations ${report.mutations.total}`);
    assert.deepEqual(Object.keys(report.byDomain), ['fixture_helpdesk']);
    assert.match(res.stderr, /reject every duplicated write of 4 task/);
  });

  it('validate refuses an assertion whose query is wrong, naming file, line, task and assertion; verify reports it against the task', async () => {
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-bad-assertion-'));
    const env = fixtureEnvironment();
    try {
      const good = fixtureTasks('train', 'full')[0]!;
      const wrong = {
        ...good,
        id: 'bad-assertion',
        assertions: [{ description: 'shoe size kept', sql: 'SELECT shoe_size FROM customers', expect: [] }],
      };
      const { file } = writeTaskSet(bad, 'bad-assertion', '1', [good, wrong]);
      const res = await runCli(['tasks', 'validate', file]);
      assert.equal(res.code, 2, res.stdout);
      const line = `${file}:2: task bad-assertion: assertions[0]: "shoe size kept": the query fails on the golden final state: column "shoe_size" does not exist (SQLSTATE 42703); fix the assertion's SQL`;
      assert.ok(res.stderr.includes(line), `missing ${line} in:\n${res.stderr}`);
      assert.ok(!res.stderr.includes(`task ${good.id}:`), 'the good task is not reported');
      const report = await verifyTasks(env.backend, env.expected, [good, wrong]);
      assert.equal(report.oracle.passed, 1);
      assert.deepEqual(
        report.problems.map((p) => [p.taskId, p.agent]),
        [['bad-assertion', 'oracle']],
      );
      assert.match(
        report.problems[0]!.message,
        /assertions\[0\] \(shoe size kept\): the query fails: column "shoe_size"/,
      );
    } finally {
      await env.close();
      fs.rmSync(bad, { recursive: true, force: true });
    }
  });
});
