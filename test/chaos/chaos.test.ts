import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { runChaos } from './chaos.js';
import { renderTable, verdicts } from './table.js';

// `npm run chaos -- --short`, as CI runs it: a one-step campaign of the smoke preset's tiny served model, plus oracle
// evaluations alongside, on a private stack (own PostgreSQL cluster and Temporal dev server, free ports) with the
// real worker processes (episode databases reset and reused), while an episode worker is SIGKILLed mid-episode,
// PostgreSQL is crash-restarted and a grading statement is cancelled. Then `npm run chaos -- --async --short`: three
// asynchronous steps (K = 1) on a fleet of two of the project's policy servers, one restarted while step 2's publish
// to it is held and step 3's reconcile runs. The full campaigns (every fault, the zombie attempts included, against a
// fault-free baseline) are `npm run chaos` and `npm run chaos -- --async`; their tables are in docs/reliability.md.
// The zombie attempts run in CI as test/pipeline/zombie-worker.test.ts.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-chaos-'));
// The private cluster and logs take a busy disk seconds to delete: the removal runs on after the test file is done.
after(() => spawn('rm', ['-rf', dir, `${dir}-async`], { detached: true, stdio: 'ignore' }).unref());

// A private stack, a one-step campaign under three faults, then every episode's database replayed: 3 to 7 minutes on a
// 2-core machine, plus the base model's build (about 5 minutes) on a fresh checkout, where this file is the first to
// need it; past the suite's 10-minute default. This bound only catches a hang.
test(
  'chaos --short: a worker SIGKILL, a PostgreSQL restart and a cancelled grading lose no episode, apply no effect twice, score no outage as a failure',
  { timeout: 1_500_000 },
  async (t) => {
    // Real time on private servers, not the time-skipping test server: real SIGKILLs and restarts are the point.
    const result = await runChaos({ short: true, dir, log: (line) => t.diagnostic(line) });
    const table = renderTable(result);
    t.diagnostic(table);
    for (const v of verdicts(result)) assert.ok(v.ok, `${v.name}: ${v.value} (required ${v.required})\n${table}`);
    assert.deepEqual(
      result.fired.map((f) => f.kind),
      ['episode-worker-sigkill', 'postgres-restart', 'grading-cancel'],
    );
    const inv = result.invariants;
    assert.ok(inv.retried > 0, 'the faults made Temporal retry episodes');
    assert.ok(inv.resumed > 0, 'a retried episode resumed from its turn checkpoint');
    assert.ok(
      inv.oracleEpisodes > 0 && inv.writes > 0,
      `the effects check had writes to check (${inv.writes} in ${inv.effectsChecked} episodes)`,
    );
    assert.equal(inv.effectsChecked, inv.episodes - inv.refilled, 'every episode with an outcome was replayed');
  },
);

// The asynchronous CI run: about 3 minutes on a 2-core machine (the base model is cached by the test above).
test(
  'chaos --async --short: a rollout server restarted while a publish to it is held, the next step reconciling meanwhile: nothing lost, applied twice or mis-scored; no server goes back a version; every turn names the version that served it',
  { timeout: 1_500_000 },
  async (t) => {
    const result = await runChaos({ short: true, async: true, dir: `${dir}-async`, log: (line) => t.diagnostic(line) });
    const table = renderTable(result);
    t.diagnostic(table);
    for (const v of verdicts(result)) assert.ok(v.ok, `${v.name}: ${v.value} (required ${v.required})\n${table}`);
    assert.deepEqual(
      result.fired.map((f) => f.kind),
      ['rollout-restart-mid-publish'],
    );
    // The reconcile ran while the publish held the restarted server, and left it to the publish.
    assert.match(
      result.fired[0]!.detail,
      /step 3's reconcile meanwhile \(current version 1\): publishing \(a publish holds its lease\)/,
    );
    const restarted = result.served![1]!;
    assert.equal(restarted.starts.length, 2, 'the second server started twice');
    assert.deepEqual(restarted.starts[1]!.slice(0, 2), [0, 2], "restarted on the base model, then step 2's version");
    assert.equal(restarted.atEnd, '3', 'on the newest version at the end');
    assert.ok(result.invariants.turnVersions.turns > 0, 'the records hold turns to check');
  },
);
