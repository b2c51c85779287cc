import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import pg from 'pg';
import { createFleetActivities, type ReconciledServer, type ReconcileFleetInput } from '../../activities/fleet.js';
import {
  createTrainingActivities,
  type PublishPolicyInput,
  type PublishPolicyResult,
} from '../../activities/training.js';
import { fromRoot } from '../../core/paths.js';
import { connectionConfig } from '../../environment/connection.js';
import { defaultPublishOptions, publishCheckpoint, type PublishOptions } from '../../runtime/clients/policy-admin.js';
import type { PolicyServerRef } from '../../schemas/clients.js';
import type { ArtifactStore } from '../../storage/artifacts.js';
import { postgresServerLeases } from '../../storage/server-leases.js';
import { loadConfig } from '../../workers/config.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { freePort, startProcess } from '../helpers/index.js';
import { lockVllm, suiteVllm, type VllmTarget } from '../helpers/vllm.js';

// Versions only move forward (docs/publishing.md): a publish and a reconcile of the same servers at once, as under
// asynchronous steps (step n publishes while step n+1's rollouts reconcile the fleet), on real servers: the suite's
// vLLM and one of the project's policy servers, each behind a proxy that holds the publish's reload until the test
// lets it go. The leases are the control worker's: advisory locks in the stack's PostgreSQL.
const config = loadConfig();
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-publish-race-'));
const tokenFile = path.join(workDir, 'admin.token');
const fast: PublishOptions = { ...defaultPublishOptions, backoffMs: 5, versionTimeoutMs: 30_000 };
const leases = postgresServerLeases(connectionConfig(config));
const leased: PublishOptions = { ...fast, leases };
let vllm: VllmTarget & { close(): Promise<void> };
let release: () => Promise<void>;
let ours: ReturnType<typeof startProcess>;
let oursPort: number;
let proxies: FaultProxy[] = [];
let servers: PolicyServerRef[];

/** The project's policy server on `oursPort`, as a supervisor starts it: the base weights, version 0. */
async function startOurs(): Promise<ReturnType<typeof startProcess>> {
  const server = startProcess(
    fromRoot(config.python.venv, 'bin', 'python'),
    [
      ...['-m', 'finalstate.policy_server', '--model', vllm.weightsDir, '--port', String(oursPort)],
      ...['--device', 'cpu', '--threads', '1', '--admin-token-file', tokenFile],
    ],
    /policy server ready/,
    { PYTHONPATH: fromRoot('python') },
    180_000,
  );
  await server.started;
  return server;
}

before(async () => {
  vllm = await suiteVllm();
  release = (await lockVllm(vllm)).release;
  oursPort = await freePort();
  ours = await startOurs();
  proxies = [await new FaultProxy(vllm.url).start(), await new FaultProxy(`http://127.0.0.1:${oursPort}`).start()];
  servers = [
    { url: proxies[0]!.url, kind: 'vllm' },
    { url: proxies[1]!.url, kind: 'finalstate', tokenFile },
  ];
});

after(async () => {
  for (const p of proxies) await p.stop();
  await ours?.stop();
  await release?.();
  await vllm?.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

/** publishPolicy of the tiny model as `version`, to every server unless `input` names them, holding the leases. */
const publishPolicy = (version: number, input: Partial<PublishPolicyInput> = {}): Promise<PublishPolicyResult> =>
  new MockActivityEnvironment().run(
    createTrainingActivities({ artifacts: {} as ArtifactStore, publish: leased }).publishPolicy,
    {
      checkpointUri: pathToFileURL(vllm.weightsDir).href,
      version,
      servers,
      previous: { checkpointUri: vllm.weightsDir, version: version - 1 },
      ...input,
    },
  );
/** reconcileFleet with `version` current, with the leases unless `publish` is given without them. */
const reconcileFleet = (
  version: number,
  { publish = leased, only = servers }: { publish?: PublishOptions; only?: PolicyServerRef[] } = {},
): Promise<{ servers: ReconciledServer[] }> =>
  new MockActivityEnvironment().run(createFleetActivities({ publish, adminTokenFile: tokenFile }).reconcileFleet, {
    servers: only,
    current: { version, checkpointUri: pathToFileURL(vllm.weightsDir).href },
    baseModel: vllm.weightsDir,
  } satisfies ReconcileFleetInput);

/** The version each server reports, read past the proxies. */
async function served(): Promise<string[]> {
  const vllmVersion = ((await (await fetch(`${vllm.url}/weight_info`)).json()) as { weight_version: string })
    .weight_version;
  const models = (await (await fetch(`http://127.0.0.1:${oursPort}/v1/models`)).json()) as {
    data: Array<{ policy_version: number }>;
  };
  return [vllmVersion, String(models.data[0]!.policy_version)];
}

/** Holds every reload through `proxy` until the returned function is called. */
function holdReloads(proxy: FaultProxy): () => void {
  let letGo!: () => void;
  proxy.hold('/collective_rpc', new Promise<void>((resolve) => (letGo = resolve)));
  return letGo;
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 120_000; !ok(); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
}

test('a publish in flight, its server restarted, the next step reconciling meanwhile: the reconcile leaves the servers to the publish, which lands; nothing goes back a version', async (t) => {
  const first = await publishPolicy(1);
  assert.deepEqual(
    first.servers.map((s) => s.version),
    [1, 1],
  );
  assert.deepEqual(await served(), ['1', '1']);

  // Step 2's publish, its reloads held at the proxies: it holds both servers' leases (and has paused them).
  const letGo = proxies.map(holdReloads);
  const publish = publishPolicy(2);
  publish.catch(() => undefined);
  await until('both reloads of the publish held', () => proxies.every((p) => p.inFlight('/collective_rpc') === 1));

  // The project's server restarts meanwhile, on its base weights (version 0), as its supervisor would start it.
  const killed = new Promise((resolve) => ours.child.once('exit', resolve));
  ours.child.kill('SIGKILL');
  await killed;
  ours = await startOurs();
  assert.deepEqual(await served(), ['reloading-2', '0']);

  // Step 3's reconcile (its current version: 1, the newest published when it started) runs now: both leases are held.
  const during = await reconcileFleet(1);
  t.diagnostic(`reconcile during the publish: ${JSON.stringify(during.servers)}`);
  assert.deepEqual(
    during.servers.map((s) => [s.action, s.reported, s.detail]),
    [
      ['publishing', null, 'a publish holds its lease'],
      ['publishing', null, 'a publish holds its lease'],
    ],
    'left to the publish: the restarted server is not given version 1',
  );

  for (const go of letGo) go();
  const second = await publish;
  assert.deepEqual(
    second.servers.map((s) => [s.kind, s.version]),
    [
      ['vllm', 2],
      ['finalstate', 2],
    ],
    'the held reload landed on the restarted server',
  );
  assert.deepEqual(second.ejected, []);
  const afterwards = await reconcileFleet(1);
  assert.deepEqual(
    afterwards.servers.map((s) => [s.action, s.reported]),
    [
      ['ahead', '2'],
      ['ahead', '2'],
    ],
  );
  assert.deepEqual(await served(), ['2', '2'], 'both on the newest version');
  // The restarted server's own log: the versions it served since it started, in order.
  assert.deepEqual(
    [...ours.output().matchAll(/serving .* as policy version (\d+)/g)].map((m) => m[1]),
    ['2'],
  );
});

test("the project's server refuses a version older than it serves (409) unless told to roll back: a reconcile that read it behind and then lost the race reports it ahead", async () => {
  // A reconcile without the lease (a control worker of before it, or a publisher outside the fleet): it reads the
  // project's server on version 2, behind current 3, and its reload of 3 is held while version 4 is published past the
  // proxy. Let go, the server refuses 3 itself.
  const ourServer = servers.slice(1);
  const letGo = holdReloads(proxies[1]!);
  const reconcile = reconcileFleet(3, { publish: fast, only: ourServer });
  await until('the reconcile’s reload held', () => proxies[1]!.inFlight('/collective_rpc') === 1);
  const direct = { url: `http://127.0.0.1:${oursPort}`, kind: 'finalstate' as const };
  const token = fs.readFileSync(tokenFile, 'utf8').trim();
  assert.equal((await publishCheckpoint(direct, vllm.weightsDir, 4, { ...fast, token })).version, 4);
  letGo();
  const [raced] = (await reconcile).servers;
  assert.equal(raced!.action, 'ahead');
  assert.equal(raced!.reported, '2');
  assert.match(raced!.detail ?? '', /policy version 3 is older than version 4, which this server serves: not loaded/);
  assert.deepEqual((await served())[1], '4');

  // publishPolicy takes the refusal as a configuration mistake: a server ahead of the campaign, not an outage.
  await assert.rejects(
    publishPolicy(3, { servers: ourServer }),
    /refused the request \(HTTP 409\): policy version 3 is older than version 4/,
  );
  // Going back on purpose: the publish says rollback.
  assert.equal((await publishCheckpoint(direct, vllm.weightsDir, 3, { ...fast, token, rollback: true })).version, 3);
  assert.deepEqual((await served())[1], '3');
});

test('the lease: one holder per server at a time, the others wait or pass; a holder whose connection dies loses it', async () => {
  const url = `http://lease-test.invalid:${process.pid}`;
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => (letGo = resolve));
  let holding = false;
  const first = leases.hold(url, async () => {
    holding = true;
    await gate;
    return 'first';
  });
  await until('the first holder', () => holding);
  assert.deepEqual(await leases.tryHold(url, async () => 'passed'), { held: false });
  assert.deepEqual(await leases.tryHold(`${url}/`, async () => 'passed'), { held: false }, 'the same URL');
  const order: string[] = [];
  const second = leases.hold(url, async () => void order.push('second'));
  order.push('released');
  letGo();
  assert.equal(await first, 'first');
  await second;
  assert.deepEqual(order, ['released', 'second'], 'the second waited for the first');

  // A worker that dies: its lease's connection ends (here terminated by PostgreSQL), and the lease with it.
  holding = false;
  const orphan = leases.hold(url, async () => {
    holding = true;
    await new Promise(() => undefined);
  });
  orphan.catch(() => undefined);
  await until('the orphan holder', () => holding);
  const admin = new pg.Client(connectionConfig(config));
  await admin.connect();
  try {
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (hashtextextended($1, 0) & 4294967295)::oid",
      [`finalstate.policy-server:${url}`],
    );
  } finally {
    await admin.end();
  }
  assert.deepEqual(await leases.tryHold(url, async () => 'taken'), { held: true, value: 'taken' });
});
