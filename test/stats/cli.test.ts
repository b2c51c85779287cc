import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { row, taskRows, toJsonl } from './rows.js';

let dir: string;
const file = (name: string) => path.join(dir, name);

function finalstate(...args: string[]) {
  const result = spawnSync(process.execPath, [fromRoot('bin', 'finalstate.js'), ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-stats-cli-'));
  // A: 3/3, B: 1/3, C: 0/3 + one infra error; two domains; 0.10 $ per episode.
  const cost = { costUsd: 0.1 };
  fs.writeFileSync(
    file('base.jsonl'),
    toJsonl([
      ...taskRows('A', [1, 1, 1], cost),
      ...taskRows('B', [0, 1, 0], cost),
      ...taskRows('C', [0, 0, 0], { ...cost, domain: 'd2' }),
      row('C', 3, 1, { ...cost, domain: 'd2', error: 'infra' }),
    ]),
  );
  fs.writeFileSync(
    file('trained.jsonl'),
    toJsonl([
      ...taskRows('A', [1, 1, 1], cost),
      ...taskRows('B', [1, 1, 1], cost),
      ...taskRows('C', [0, 0, 1], { ...cost, domain: 'd2' }),
    ]),
  );
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('finalstate metrics --json prints the documented keys with the right values', () => {
  const { code, stdout, stderr } = finalstate('metrics', file('base.jsonl'), '--json');
  assert.equal(code, 0, stderr);
  const m = JSON.parse(stdout);
  for (const key of [
    'pass1',
    'passAtK',
    'observedKK',
    'passHatK',
    'posteriorPassHatK',
    'costUsd',
    'byDomain',
    'excluded',
  ])
    assert.ok(key in m, `key ${key}`);
  assert.equal(m.k, 3);
  assert.ok(Math.abs(m.pass1 - (1 + 1 / 3) / 3) < 1e-12);
  assert.ok(Math.abs(m.passAtK - 2 / 3) < 1e-12);
  assert.deepEqual(m.observedKK, { count: 1, fraction: 1 / 3 });
  assert.deepEqual(Object.keys(m.passHatK).sort(), ['plugin', 'unbiased']);
  assert.ok(Math.abs(m.passHatK.unbiased - 1 / 3) < 1e-12);
  assert.ok(Math.abs(m.passHatK.plugin - (1 + 1 / 27) / 3) < 1e-12);
  assert.ok(m.posteriorPassHatK > 0 && m.posteriorPassHatK < 1);
  assert.ok(Math.abs(m.costUsd.total - 1.0) < 1e-12, 'ten rows at 0.10 $, the errored one included');
  assert.ok(Math.abs(m.costUsd.perSuccess - 1.0 / 4) < 1e-12);
  assert.ok(Math.abs(m.costUsd.perDependableTask - 1.0) < 1e-12);
  assert.deepEqual(Object.keys(m.byDomain), ['d1', 'd2']);
  assert.equal(m.excluded.rows, 1);
  assert.equal(m.excluded.infra, 1);
  for (const fraction of [
    m.pass1,
    m.passAtK,
    m.observedKK.fraction,
    m.passHatK.unbiased,
    m.passHatK.plugin,
    m.posteriorPassHatK,
  ]) {
    assert.ok(fraction >= 0 && fraction <= 1, `fraction ${fraction} in [0,1]`);
  }
});

test('finalstate metrics prints readable tables, and names the task when k is too large', () => {
  const text = finalstate('metrics', file('base.jsonl'));
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /pass@1\s+44\.44%/);
  assert.match(text.stdout, /tasks passed 3\/3\s+33\.33% \(1\)/);
  assert.match(text.stdout, /Excluded: 1 rows with an error \(1 infra, 0 grader\)/);
  const tooLarge = finalstate('metrics', file('base.jsonl'), '--k', '4', '--json');
  assert.equal(tooLarge.code, 2);
  assert.match(tooLarge.stderr, /k=4 exceeds the trials with an outcome of task "A" \(n=3\)/);
  assert.match(finalstate('metrics', file('base.jsonl'), '--k', 'two').stderr, /--k must be an integer >= 1/);
  assert.match(finalstate('metrics', file('missing.jsonl')).stderr, /cannot read results file/);
});

test('finalstate metrics --prices prices every role from token usage', () => {
  const usage = { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 0 };
  fs.writeFileSync(
    file('usage.jsonl'),
    toJsonl(taskRows('A', [1, 0], { usage: { agent: usage, user: usage, judge: usage } })),
  );
  fs.writeFileSync(
    file('prices.json'),
    JSON.stringify({
      models: { m: { input: 2, cachedInput: 1, output: 8 }, j: { input: 0.5, cachedInput: 0.5, output: 1 } },
      roles: { agent: 'm', user: 'm', judge: 'j' },
    }),
  );
  const { code, stdout, stderr } = finalstate(
    'metrics',
    file('usage.jsonl'),
    '--prices',
    file('prices.json'),
    '--json',
  );
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout).costUsd, {
    total: 9,
    perSuccess: 9,
    perDependableTask: null,
    byRole: { agent: 4, user: 4, judge: 1 },
    source: 'prices',
  });
  fs.writeFileSync(
    file('bad-prices.json'),
    JSON.stringify({
      models: { m: { input: 2, cachedInput: 1, output: 8 } },
      roles: { agent: 'm', user: 'm', judge: 'j' },
    }),
  );
  assert.match(
    finalstate('metrics', file('usage.jsonl'), '--prices', file('bad-prices.json')).stderr,
    /bad-prices\.json: not a price table: roles\.judge: model "j" has no price/,
  );
});

test('finalstate compare --json: deltas, flips and sharpening', () => {
  const { code, stdout, stderr } = finalstate('compare', file('base.jsonl'), file('trained.jsonl'), '--json');
  assert.equal(code, 0, stderr);
  const c = JSON.parse(stdout);
  assert.ok(Math.abs(c.metrics.pass1.delta - (1 + 1 + 1 / 3 - 1 - 1 / 3) / 3) < 1e-12);
  assert.deepEqual(c.flips.kk, { gained: ['B'], lost: [] });
  assert.deepEqual(c.flips.coverage, { gained: ['C'], lost: [] });
  assert.equal(c.sharpening.verdict, 'improvement');
  assert.deepEqual(Object.keys(c.byDomain), ['d1', 'd2']);
  assert.equal(c.intervalMethod.name, 'paired-bootstrap-over-tasks');
  const text = finalstate('compare', file('base.jsonl'), file('trained.jsonl'));
  assert.match(text.stdout, /gained 3\/3\s+1\s+B/);
});

test('finalstate select --json: every task with k, n, masses and bin, the pool, and the written file', () => {
  const out = file('pool.json');
  const { code, stdout, stderr } = finalstate(
    'select',
    file('base.jsonl'),
    '--bins',
    '0,0.5,1',
    '--keep',
    '0',
    '--out',
    out,
    '--json',
  );
  assert.equal(code, 0, stderr);
  const s = JSON.parse(stdout);
  assert.deepEqual(s.edges, [0, 0.5, 1]);
  assert.deepEqual(
    s.records.map((r: { taskId: string; k: number; n: number; bin: number; reason: string }) => [
      r.taskId,
      r.k,
      r.n,
      r.bin,
      r.reason,
    ]),
    [
      ['A', 3, 3, 1, 'bin-not-kept'],
      ['B', 1, 3, 0, 'kept'],
      ['C', 0, 3, 0, 'kept'],
    ],
  );
  assert.equal(s.records[0].masses.length, 2);
  assert.deepEqual(s.pool, ['B', 'C']);
  assert.equal(s.adaptiveProbing.fixedEpisodes, 9);
  assert.deepEqual(JSON.parse(fs.readFileSync(out, 'utf8')).pool, ['B', 'C']);
  assert.match(finalstate('select', file('base.jsonl'), '--keep', '7').stderr, /--keep: bin "7" is not one of 0..4/);
});
