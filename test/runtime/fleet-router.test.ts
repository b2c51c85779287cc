import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FleetRouter } from '../../runtime/fleet/router.js';
import type { RolloutServer } from '../../schemas/clients.js';

// The router's choices alone (no server is reached: the probe of a server taken out runs on real servers in
// test/runtime/fleet-routing.test.ts). Port 9 (discard) answers nothing, so a probe would only keep a server out.
const fleet: RolloutServer[] = [0, 1, 2].map((i) => ({ url: `http://127.0.0.1:9/r${i}`, kind: 'vllm' }));

test('least loaded by in-flight episodes; a resumed attempt keeps its server while it is in service; one taken out gets none', (t) => {
  const router = new FleetRouter({ probeIntervalMs: 60_000 });
  t.after(() => router.close());
  const leases = Array.from({ length: 6 }, () => router.acquire(fleet));
  assert.deepEqual(
    leases.map((l) => l.server.url.slice(-2)),
    ['r0', 'r1', 'r2', 'r0', 'r1', 'r2'],
    'spread evenly',
  );
  leases[1]!.release();
  leases[1]!.release(); // idempotent
  assert.equal(router.acquire(fleet).server.url, fleet[1]!.url, 'the one with fewest in flight');
  assert.equal(router.acquire(fleet, { prefer: `${fleet[0]!.url}/` }).server.url, fleet[0]!.url, 'its own server');

  const events: string[] = [];
  router.subscribe((e) => events.push(`${e.kind} ${e.url.slice(-2)}: ${e.detail}`));
  leases[2]!.failed('connection refused');
  assert.deepEqual(events, ['out r2: connection refused']);
  for (let i = 0; i < 4; i++) assert.notEqual(router.acquire(fleet).server.url, fleet[2]!.url, 'r2 is out');
  assert.notEqual(router.acquire(fleet, { prefer: fleet[2]!.url }).server.url, fleet[2]!.url, 'even when preferred');
  assert.match(router.status().find((s) => s.url === fleet[2]!.url)!.out!, /connection refused/);

  for (const l of leases) l.failed('down');
  assert.equal(events.length, 3, 'each server is taken out once');
  assert.ok(
    fleet.some((s) => s.url === router.acquire(fleet).server.url),
    'with none in service, still a server',
  );
});
