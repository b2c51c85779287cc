import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { readTaskSet } from '../../environment/task-set.js';
import { thinkingBoxHome } from '../../environment/thinkingbox/home.js';
import { ThinkingBoxProxyClient } from '../../environment/thinkingbox/proxy-client.js';
import { ThinkingBoxSessionPool } from '../../environment/thinkingbox/session-pool.js';
import { ThinkingBoxSidecar } from '../../environment/thinkingbox/sidecar.js';
import { waitFor } from '../../infra/stack/process.js';
import * as thinkingbox from '../../infra/stack/thinkingbox.js';
import type { DatabaseEpisodeRunner } from '../../runtime/episode/episode-runner.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import type { EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import type { Task } from '../../schemas/task.js';
import { loadConfig } from '../../workers/config.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { controlPool } from '../../workers/stores.js';
import type pg from 'pg';
import { freePort, runCli, uniqueName } from '../helpers/index.js';
import { thinkingBoxRunner } from '../../testkit/thinkingbox-runner.js';
import { importProjectTasks, PROJECT_THINKINGBOX_TESTS, thinkingBoxSkip } from '../helpers/thinkingbox.js';

// ThinkingBox's session proxy SIGKILLed mid-episode (a proxy of this file's own, on a free port, with its server
// processes): the attempt fails as infrastructure and stores nothing; the retried attempt finds its session gone,
// starts the episode over in a fresh session of the restarted proxy, and is scored on that one alone.
const config = loadConfig();
const skip = thinkingBoxSkip(config);
let runtime: EpisodeRuntime;
let proxyProcess: ChildProcess | undefined;
let proxy: ThinkingBoxProxyClient;
let sessions: ThinkingBoxSessionPool;
let sidecar: ThinkingBoxSidecar;
let runner: DatabaseEpisodeRunner;
let manifest: string;
let leases: pg.Pool;
let task: Task;
let port: number;

/** This file's proxy on its port; with `apiKey`, one that requires it as a bearer token (ThinkingBox's --require-auth). */
async function startProxy(apiKey?: string): Promise<void> {
  const home = thinkingBoxHome(config);
  const args = ['-m', 'thinkingbox.cli.main', 'mcp-start', '--servers', home.serversFile, '--port', String(port)];
  proxyProcess = spawn(home.python, apiKey ? [...args, '--require-auth'] : args, {
    env: {
      ...process.env,
      THINKINGBOX_DATA: home.data,
      ...(apiKey ? { THINKINGBOX_SESSION_PROXY_KEY: apiKey } : {}),
    },
    stdio: 'ignore',
    detached: true,
  });
  await waitFor('thinkingbox proxy', () => proxy.healthy(), 60_000);
}

/** The oracle's episode of the file's task. */
function oracleRequest(episodeId: string): EpisodeRequest {
  return EpisodeRequest.parse({
    episodeId,
    taskId: task.id,
    taskSet: manifest,
    trial: 0,
    policy: { kind: 'oracle' },
    user: { kind: 'scripted' },
    seed: 0,
  });
}

function killProxy(): void {
  // the proxy and the server processes of its sessions: its whole process group, as a crashed machine would
  if (proxyProcess?.pid) process.kill(-proxyProcess.pid, 'SIGKILL');
  proxyProcess = undefined;
}

before(async () => {
  if (skip) return;
  port = await freePort();
  proxy = new ThinkingBoxProxyClient({ url: `http://127.0.0.1:${port}` });
  await startProxy();
  manifest = await importProjectTasks(config, [PROJECT_THINKINGBOX_TESTS]);
  task = readTaskSet(manifest.replace(/\.manifest\.json$/, '.jsonl')).tasks.find((t) => t.golden.length >= 4)!;
  runtime = await createEpisodeRuntime(config);
  leases = controlPool(config, 4);
  sessions = new ThinkingBoxSessionPool(proxy, { spares: 0, timeoutSeconds: 60 });
  sidecar = new ThinkingBoxSidecar(thinkingBoxHome(config).python);
  runner = thinkingBoxRunner(config, runtime, { proxy, sessions, sidecar, leases });
});
after(async () => {
  if (skip) return;
  killProxy();
  await sidecar.close();
  await leases.end();
  await runtime.close();
});

test(
  'the proxy SIGKILLed mid-episode: the attempt fails as infrastructure, the retry starts over and is scored once',
  { skip, timeout: 300_000 },
  async () => {
    const request = oracleRequest(uniqueName('tb-kill'));
    const store = new EpisodeStore(runtime.control);
    // attempt 1: the proxy dies after the agent's second turn, between two of the golden calls
    await assert.rejects(
      runner.run(request, { attempt: 1, onTurn: (turn) => (turn === 2 ? killProxy() : undefined) }),
      (err: Error) => {
        assert.ok(err instanceof InfrastructureError, `${err.name}: ${err.message}`);
        return true;
      },
    );
    assert.equal(await store.load(request.episodeId), undefined, 'nothing scored or stored for the failed attempt');
    const row = await runtime.control.query<{ session_id: string; sent_calls: number }>(
      'SELECT session_id, sent_calls FROM thinkingbox_episodes WHERE episode_id = $1',
      [request.episodeId],
    );
    assert.equal(row.rowCount, 1, 'the episode keeps its row for the retry');
    assert.ok(row.rows[0]!.sent_calls >= 1);

    await startProxy();
    const outcome = await runner.run(request, { attempt: 2 });
    assert.equal(outcome.reward, 1, 'the retried attempt, started over in a fresh session, is the one scored');
    const record = (await store.load(request.episodeId))!;
    assert.equal(record.toolCalls.length, task.golden.length, 'no call of the lost session is in the record');
    assert.deepEqual(record.resumedAt, [], 'not resumed: started over');
    const left = await runtime.control.query('SELECT 1 FROM thinkingbox_episodes WHERE episode_id = $1', [
      request.episodeId,
    ]);
    assert.equal(left.rowCount, 0, 'its row is gone after the teardown');
    assert.equal(await proxy.hasSession(row.rows[0]!.session_id), false);
    await runtime.control.query('DELETE FROM episodes WHERE episode_id = $1', [request.episodeId]);
  },
);

test(
  'a proxy due a restart is restarted between episodes, and the episodes after it pass',
  { skip, timeout: 300_000 },
  async () => {
    // restart after 2 sessions: the third episode waits for the first two to be done, then gets a restarted proxy
    const pids: number[] = [];
    const pool = new ThinkingBoxSessionPool(proxy, {
      spares: 0,
      timeoutSeconds: 60,
      restartAfterSessions: 2,
      restart: async () => {
        pids.push(proxyProcess!.pid!);
        killProxy();
        await startProxy();
      },
    });
    const restarting = thinkingBoxRunner(config, runtime, { proxy, sessions: pool, sidecar, leases });
    const ids: string[] = [];
    const play = () => {
      const episodeId = uniqueName('tb-restart');
      ids.push(episodeId);
      return restarting.run(oracleRequest(episodeId));
    };
    const rewards = await Promise.all([play(), play(), play()]);
    assert.deepEqual(
      rewards.map((o) => o.reward),
      [1, 1, 1],
    );
    assert.equal(pool.restarts, 1);
    assert.notEqual(pids[0], proxyProcess!.pid, 'a new proxy process');
    await runtime.control.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [ids]);
  },
);

test(
  'a running proxy of a configured URL, with its bearer key from a file, never printed',
  { skip, timeout: 300_000 },
  async () => {
    const apiKey = `tb-key-${randomBytes(12).toString('hex')}`;
    killProxy();
    await startProxy(apiKey);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-tb-key-'));
    const keyFile = path.join(dir, 'proxy.key');
    fs.writeFileSync(keyFile, `${apiKey}\n`, { mode: 0o600 });
    const env = { FINALSTATE_THINKINGBOX_URL: proxy.url, FINALSTATE_THINKINGBOX_API_KEY_FILE: keyFile };
    try {
      // without the key the proxy refuses, and the refusal is infrastructure that names no key
      await assert.rejects(
        proxy.createSession({
          sessionId: uniqueName('tb-nokey'),
          serverConfig: task.thinkingbox!.serverConfig,
          availableTools: task.thinkingbox!.availableTools,
          timeoutSeconds: 60,
        }),
        (err: Error) =>
          err instanceof InfrastructureError && /HTTP 401/.test(err.message) && !err.message.includes(apiKey),
      );
      const configured = loadConfig({ env: { ...process.env, ...env } });
      const address = thinkingbox.proxyAddress(configured);
      assert.deepEqual(address, { url: proxy.url, apiKey });
      assert.equal(await thinkingbox.startProxy(configured), 'external', 'a configured proxy is used, not started');
      const keyed = new ThinkingBoxProxyClient(address);
      const pool = new ThinkingBoxSessionPool(keyed, { spares: 0, timeoutSeconds: 60 });
      const outcome = await thinkingBoxRunner(config, runtime, { proxy: keyed, sessions: pool, sidecar, leases }).run(
        oracleRequest(uniqueName('tb-keyed')),
      );
      assert.equal(outcome.reward, 1, 'episodes run on it with the key');
      await pool.close();
      const status = runCli(['dev', 'status'], env);
      assert.match(status.stdout, new RegExp(`thinkingbox\\s+${proxy.url.replace(/[.]/g, '\\.')}`));
      assert.ok(!status.stdout.includes(apiKey) && !status.stderr.includes(apiKey), 'the key is never printed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      killProxy();
      await startProxy();
    }
  },
);
