import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import { ExpectedStates, GoldenCallError } from '../../environment/expected-state.js';
import { checkFinalState, finalStateHolds } from '../../environment/grader.js';
import { scoreEpisode } from '../../runtime/episode/scoring.js';
import { AssertionQueryError, checkAssertions } from '../../environment/sql-assertions.js';
import { InfrastructureError } from '../../core/errors.js';
import { GradeReport, StateCheck } from '../../schemas/grading.js';
import type { Conversation } from '../../schemas/conversation.js';
import type { ToolCall, Task } from '../../schemas/task.js';
import { cancelWhenRunning, fixtureEnvironment, fixtureTask, uniqueEpisodeId } from './harness.js';

describe('final-state grading', () => {
  const env = fixtureEnvironment();
  after(() => env.close());

  /** Run the given calls through the episode's MCP tools, then check the final state. */
  async function play(task: Task, calls: ToolCall[]) {
    const episode = await env.backend.provision(uniqueEpisodeId('grade'), task);
    const tools = await connectEpisodeTools(env.backend, episode);
    try {
      for (const call of calls) await tools.client.callTool(call.tool, call.arguments);
      return StateCheck.parse(await checkFinalState(env.backend, env.expected, episode));
    } finally {
      await tools.close();
      await env.backend.teardown(episode);
    }
  }

  it('passes the golden solution, with equal state hashes', async () => {
    const task = fixtureTask('new-customer-email');
    const report = await play(task, task.golden);
    assert.deepEqual(report.diff, []);
    assert.equal(finalStateHolds(report), true);
    assert.equal(report.actualStateSha256, report.expectedStateSha256);
    assert.match(report.expectedStateSha256, /^[0-9a-f]{64}$/);
  });

  it('reports missing_row when an expected insert is absent', async () => {
    const task = fixtureTask('hold-ticket');
    const report = await play(task, []);
    assert.equal(finalStateHolds(report), false);
    const missing = report.diff.filter((d) => d.kind === 'missing_row');
    assert.deepEqual(
      missing.map((d) => [d.table, d.key]),
      [
        ['audit_log', { audit_id: 'AUD-1' }],
        ['tickets', { ticket_id: 'TCK-1001' }],
      ],
    );
  });

  it('reports unexpected_row for a side effect and changed_value with table, key, column, expected, actual', async () => {
    const task = fixtureTask('hold-ticket');
    const report = await play(task, [
      {
        tool: 'open_ticket',
        arguments: {
          customer_id: 'C-1',
          subject: 'Refund approval',
          status: 'open',
          note: 'different note is ignored',
        },
      },
      { tool: 'update_email', arguments: { customer_id: 'C-2', email: 'x@example.com' } },
    ]);
    assert.deepEqual(
      report.diff.filter((d) => d.kind === 'changed_value'),
      [
        {
          kind: 'changed_value',
          table: 'customers',
          key: { customer_id: 'C-2' },
          column: 'email',
          expected: 'ben@example.com',
          actual: 'x@example.com',
        },
        {
          kind: 'changed_value',
          table: 'tickets',
          key: { ticket_id: 'TCK-1001' },
          column: 'status',
          expected: 'on_hold',
          actual: 'open',
        },
      ],
    );
    assert.deepEqual(
      report.diff.filter((d) => d.kind === 'unexpected_row').map((d) => [d.table, d.key]),
      [['audit_log', { audit_id: 'AUD-2' }]],
    );
    assert.ok(
      !report.diff.some((d) => d.kind === 'changed_value' && d.column === 'note'),
      'ignored free-text column never compared',
    );
  });

  it('reports deleted_row when a row of the initial state that should remain is gone', async () => {
    const task = fixtureTask('cancel-O-1');
    const episode = await env.backend.provision(uniqueEpisodeId('deleted'), task);
    try {
      const tools = await connectEpisodeTools(env.backend, episode);
      for (const call of task.golden) await tools.client.callTool(call.tool, call.arguments);
      await tools.close();
      await env.backend.transaction(episode, (c) => c.query("DELETE FROM tickets WHERE ticket_id = 'TCK-1000'"));
      const report = await checkFinalState(env.backend, env.expected, episode);
      assert.deepEqual(
        report.diff.map((d) => [d.kind, d.table, d.key]),
        [['deleted_row', 'tickets', { ticket_id: 'TCK-1000' }]],
      );
    } finally {
      await env.backend.teardown(episode);
    }
  });

  it('canonicalises values by the grading policy (case, whitespace, enum synonyms)', async () => {
    const task = fixtureTask('new-customer-email');
    const episode = await env.backend.provision(uniqueEpisodeId('canon'), task);
    try {
      const tools = await connectEpisodeTools(env.backend, episode);
      for (const call of task.golden) await tools.client.callTool(call.tool, call.arguments);
      await tools.close();
      await env.backend.transaction(episode, (c) =>
        c.query("UPDATE customers SET email = '  ZOE@Example.ORG ' WHERE customer_id = 'C-9'"),
      );
      const report = await checkFinalState(env.backend, env.expected, episode);
      assert.deepEqual(report.diff, []);
    } finally {
      await env.backend.teardown(episode);
    }
  });

  it('fails a task whose SQL assertion does not hold even when no diff is possible, and reports the rows', async () => {
    const task: Task = {
      ...fixtureTask('refuse-shipped'),
      assertions: [
        {
          description: 'O-2 still shipped',
          sql: "SELECT status FROM orders WHERE order_id = 'O-2'",
          expect: [{ status: 'cancelled' }],
        },
      ],
    };
    const report = await play(task, task.golden);
    assert.equal(report.stateMatches, true);
    assert.equal(finalStateHolds(report), false);
    assert.deepEqual(report.assertions, [
      { description: 'O-2 still shipped', pass: false, actual: [{ status: 'shipped' }] },
    ]);
  });

  it('scores deterministic rubrics on the final text; without a judge, judge rubrics are pending and do not count', async () => {
    const task = fixtureTask('refuse-shipped');
    const check = await play(task, task.golden);
    const scored = async (finalText?: string) => {
      const conversation: Conversation = {
        system: 'test',
        tools: [],
        turns: finalText === undefined ? [] : [{ role: 'assistant', content: finalText, toolCalls: [] }],
      };
      const { grade, reward } = await scoreEpisode({
        check,
        rubrics: task.rubrics,
        conversation,
        finishReason: 'agent_done',
      });
      GradeReport.parse(grade);
      assert.equal(grade.pass, reward === 1);
      return grade;
    };
    const leaked = await scored('Sorry; by the way Ben at BEN@example.com asked too.');
    assert.equal(leaked.pass, false);
    assert.deepEqual(
      leaked.rubrics.map((r) => r.status),
      ['failed', 'needs_judge'],
    );
    assert.equal(leaked.pendingJudgeRubrics, 1);
    const fine = await scored('Order O-2 has shipped, so I cannot cancel it.');
    assert.equal(fine.pass, true);
    const noText = await scored();
    assert.deepEqual(
      noText.rubrics.map((r) => r.status),
      ['passed', 'needs_judge'],
      'an agent that wrote nothing revealed nothing',
    );
  });

  it('caches expected states on disk per task content hash, and recomputes when the task changes', async () => {
    const task = fixtureTask('cancel-O-3');
    const first = new ExpectedStates(env.backend, env.cacheDir);
    const a = await first.get(task);
    assert.equal(first.computed, 1);
    assert.ok(fs.existsSync(first.cacheFile(task)));
    const second = new ExpectedStates(env.backend, env.cacheDir);
    const b = await second.get(task);
    assert.equal(second.computed, 0, 'a fresh process reads the disk cache');
    assert.equal(b.expectedSha256, a.expectedSha256);
    const changed: Task = { ...task, golden: [task.golden[1]!] };
    await second.get(changed);
    assert.equal(second.computed, 1);
  });

  it('reports a golden call that errors as a task error naming the call', async () => {
    const task: Task = {
      ...fixtureTask('cancel-O-1'),
      golden: [{ tool: 'cancel_order', arguments: { order_id: 'O-2', reason: 'fraud' } }],
    };
    await assert.rejects(new ExpectedStates(env.backend, env.cacheDir).compute(task), (err: unknown) => {
      assert.ok(err instanceof GoldenCallError);
      assert.match(err.message, /golden\[0\] \(cancel_order\) failed: order O-2 is shipped/);
      return true;
    });
  });

  /** A task whose grading takes a while: its last assertion sleeps, so a test can reach the statement in flight. */
  const slowGrading = (task: Task, seconds: number): Task => ({
    ...task,
    assertions: [
      ...task.assertions,
      { description: 'slow', sql: `SELECT 1 AS slept FROM pg_sleep(${seconds})`, expect: [{ slept: 1 }] },
    ],
  });

  it('a grading statement cancelled by the server (57014) is an InfrastructureError; grading again gives the fault-free grade', async () => {
    const task = slowGrading(fixtureTask('hold-ticket'), 1.5);
    const episode = await env.backend.provision(uniqueEpisodeId('grade-cancel'), task);
    const tools = await connectEpisodeTools(env.backend, episode);
    try {
      for (const call of task.golden) await tools.client.callTool(call.tool, call.arguments);
      const cancelled = cancelWhenRunning(env.backend.admin, episode.database, 'pg_sleep(1.5)');
      await assert.rejects(checkFinalState(env.backend, env.expected, episode), (err: unknown) => {
        assert.ok(err instanceof InfrastructureError, `${(err as Error).name}: ${(err as Error).message}`);
        assert.match(err.message, /grading .*canceling statement due to user request/);
        return true;
      });
      assert.equal(await cancelled, true, 'the grading statement was cancelled in flight');
      const again = await checkFinalState(env.backend, env.expected, episode);
      assert.equal(finalStateHolds(again), true);
      assert.equal(again.actualStateSha256, again.expectedStateSha256, 'the same state, graded whole');
    } finally {
      await tools.close();
      await env.backend.teardown(episode);
    }
  });

  it('an assertion whose query is wrong is a malformed task naming task and assertion, never a failed grade', async () => {
    const base = fixtureTask('cancel-O-1');
    for (const [sql, reason] of [
      ['SELECT shoe_size FROM customers', /column "shoe_size" does not exist \(SQLSTATE 42703\)/],
      ['SELEC 1', /syntax error at or near "SELEC" \(SQLSTATE 42601\)/],
      ["UPDATE orders SET total = 1 WHERE order_id = 'O-1'", /read-only transaction \(SQLSTATE 25006\)/],
    ] as const) {
      const task: Task = { ...base, assertions: [...base.assertions, { description: 'wrong', sql, expect: [] }] };
      const episode = await env.backend.provision(uniqueEpisodeId('grade-wrong'), task);
      try {
        await assert.rejects(
          env.backend.transaction(episode, (c) => checkAssertions(c, task.assertions, task.id)),
          (err: unknown) => {
            assert.ok(err instanceof AssertionQueryError, String(err));
            assert.equal(err.index, task.assertions.length - 1);
            assert.match(
              err.message,
              new RegExp(`^task ${base.id}: assertions\\[${err.index}\\] \\(wrong\\): the query fails: `),
            );
            assert.match(err.message, reason);
            return true;
          },
        );
        await assert.rejects(
          checkFinalState(env.backend, new ExpectedStates(env.backend, env.cacheDir), episode),
          AssertionQueryError,
        );
      } finally {
        await env.backend.teardown(episode);
      }
    }
  });

  it("an assertion that errors on the episode's own values (a data exception) does not hold", async () => {
    const base = fixtureTask('cancel-O-1');
    const task: Task = {
      ...base,
      assertions: [
        {
          description: 'divides by the cancelled orders',
          sql: "SELECT 1 / count(*) AS one FROM orders WHERE order_id = 'O-1' AND status = 'cancelled'",
          expect: [{ one: 1 }],
        },
      ],
    };
    const report = await play(task, []);
    assert.equal(finalStateHolds(report), false);
    assert.equal(report.assertions[0]!.pass, false);
    assert.match(report.assertions[0]!.error ?? '', /division by zero/);
    assert.equal(finalStateHolds(await play(task, task.golden)), true);
  });
});
