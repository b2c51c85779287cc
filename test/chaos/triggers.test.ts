import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chaosPreset } from './campaign.js';
import { due, type Moment } from './faults.js';
import { rejoins, servedVersionsOfLog, setBack, type FleetChange } from './fleet-report.js';

// The asynchronous chaos run's triggers and its fleet verdicts, on made-up moments, fleet histories and server logs:
// the run itself (`npm run chaos -- --async`, docs/reliability.md) is minutes of CPU; CI runs its short form
// (test/chaos/chaos.test.ts).

const activity = (type: string, extra: Partial<Moment['pending'][number]> = {}): Moment['pending'][number] => ({
  type,
  started: true,
  heartbeated: true,
  beat: true,
  worker: '1@host',
  ...extra,
});
const moment = (slot: string, pending: Moment['pending']): Moment => ({ slot, done: 1, inFlight: 1, pending });
const fleet = { episodeWorkerPid: 1 };

test('the chaos campaign: synchronous steps unless the asynchronous run asks for K', () => {
  assert.equal(chaosPreset(2, 9000).campaign.async.maxStaleness, 0, 'the smoke preset runs K = 1; the chaos runs, 0');
  assert.equal(chaosPreset(6, 9000, 1).campaign.async.maxStaleness, 1);
});

test("the overlapped gpu kill waits for both: step n's update heartbeating and step n+1's episodes running", () => {
  const fault = { kind: 'gpu-worker-sigkill-overlapped' as const, slot: 'step-1/update' };
  const update = moment('step-1/update', [activity('policyUpdate')]);
  const rollouts = moment('step-2/episodes', [activity('runEpisode')]);
  assert.equal(due(fault, [update], fleet), false, 'the update alone');
  assert.equal(due(fault, [rollouts], fleet), false, 'the next rollouts alone');
  assert.equal(due(fault, [update, moment('step-2/episodes', [])], fleet), false, 'the next step started, no episode');
  assert.equal(
    due(fault, [moment('step-1/update', [activity('policyUpdate', { heartbeated: false })]), rollouts], fleet),
    false,
    'the update not yet heartbeated',
  );
  assert.equal(due(fault, [update, rollouts], fleet), true);
  // the plain gpu kill ignores what runs beside
  assert.equal(due({ kind: 'gpu-worker-sigkill', slot: 'step-1/update' }, [update], fleet), true);
});

test('the failing publish is armed while the batch or the update runs, never once the publish began', () => {
  const fault = { kind: 'rollout-publish-fail' as const, slot: 'step-4/update' };
  assert.equal(due(fault, [moment('step-4/update', [activity('buildBatch')])], fleet), true);
  assert.equal(due(fault, [moment('step-4/update', [activity('policyUpdate')])], fleet), true);
  assert.equal(due(fault, [moment('step-4/update', [activity('publishPolicy')])], fleet), false);
  assert.equal(due(fault, [moment('step-5/episodes', [activity('policyUpdate')])], fleet), false, 'another slot');
});

test('a fleet fault counts as recovered only by a publish or reconcile to its server after it', () => {
  const url = 'http://127.0.0.1:2';
  const change = (kind: FleetChange['kind'], at: number, child: string, version: number, on = url): FleetChange => ({
    kind,
    url: on,
    version,
    child: `c/${child}`,
    at,
  });
  const kill = { kind: 'rollout-server-sigkill' as const, slot: 'step-3/episodes', at: 100, outageSeconds: 10 };
  const publish = { kind: 'rollout-publish-fail' as const, slot: 'step-4/update', at: 150, outageSeconds: 20 };
  const fired = [kill, publish].map((f) => ({ ...f, detail: '' }));
  const changes = [
    change('published', 105, 'step-2', 2), // during the outage: before the restart
    change('republished', 112, 'step-3', 2, 'http://127.0.0.1:1'), // another server
    change('republished', 115, 'step-3', 2),
    change('ejected', 168, 'step-4', 4),
    change('published', 168, 'step-4', 4, 'http://127.0.0.1:1'),
    change('republished', 175, 'step-6', 4),
  ];
  const [killed, ejected] = rejoins(fired, changes, url);
  assert.equal(killed!.by?.at, 115, 'the reconcile after the restart, not the publish during the outage');
  assert.equal(killed!.ejected, null);
  assert.equal(ejected!.ejected, true);
  assert.equal(ejected!.by?.at, 175);
  const [, notEjected] = rejoins(
    fired,
    changes.filter((c) => c.kind !== 'ejected'),
    url,
  );
  assert.deepEqual([notEjected!.ejected, notEjected!.by], [false, null], 'a publish that did not eject it');
});

test("the restart during a publish is armed while the batch or the update runs and the next step's episodes do", () => {
  const fault = { kind: 'rollout-restart-mid-publish' as const, slot: 'step-2/update' };
  const update = moment('step-2/update', [activity('policyUpdate')]);
  const rollouts = moment('step-3/episodes', [activity('runEpisode')]);
  assert.equal(due(fault, [update], fleet), false, 'no rollouts beside: no reconcile would run');
  assert.equal(due(fault, [update, rollouts], fleet), true);
  assert.equal(due(fault, [moment('step-2/update', [activity('buildBatch')]), rollouts], fleet), true);
  assert.equal(due(fault, [moment('step-2/update', [activity('publishPolicy')]), rollouts], fleet), false, 'too late');
  const [back] = rejoins(
    [{ ...fault, at: 50, outageSeconds: 20, detail: '' }],
    [
      { kind: 'republished', url: 'http://127.0.0.1:2', version: 1, child: 'c/step-2', at: 40 },
      { kind: 'published', url: 'http://127.0.0.1:2', version: 2, child: 'c/step-2', at: 72 },
    ],
    'http://127.0.0.1:2',
  );
  assert.equal(back!.by?.version, 2, 'back by the held publish, after the restart');
});

test("a server's versions by its own log: each start, then each reload it swapped in; a start that goes back is named", () => {
  const log = [
    '2026-12-06 10:00:00 INFO __main__: policy server ready on http://127.0.0.1:9 (policy version 0; admin routes on)',
    '2026-12-06 10:00:05 INFO finalstate.policy_server.engine: serving /c/step-1 as policy version 1',
    '2026-12-06 10:00:09 INFO finalstate.policy_server.engine: serving adapter c-v2 (rank 8, policy version 2) from /a',
    'policy server ready on http://127.0.0.1:9 (policy version 0; admin routes on)',
    '2026-12-06 10:01:00 INFO finalstate.policy_server.engine: serving /c/step-2 as policy version 2',
    '2026-12-06 10:01:02 INFO finalstate.policy_server.engine: serving /c/step-1 as policy version 1',
  ].join('\n');
  const starts = servedVersionsOfLog(log);
  assert.deepEqual(starts, [
    [0, 1],
    [0, 2, 1],
  ]);
  assert.deepEqual(setBack(starts), [[0, 2, 1]]);
});
