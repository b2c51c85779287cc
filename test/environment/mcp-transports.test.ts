import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { withClient } from '../../infra/stack/postgres.js';
import { loadConfig } from '../../workers/config.js';
import { fromRoot } from '../../core/paths.js';
import { EpisodeMcpClient } from '../../environment/mcp-client.js';
import { episodeNames } from '../../environment/naming.js';
import { stackKey } from '../../environment/episode-credentials.js';
import { writeTaskSet } from '../../environment/task-set.js';
import { fixtureModule, fixtureTasks, spawnServeMcp, uniqueEpisodeId } from './harness.js';

const config = loadConfig();
const databaseExists = (name: string) =>
  withClient(
    config,
    undefined,
    async (c) => ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0,
  );

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting until ${what}`);
}

/** A real SDK client against `finalstate tasks serve-mcp` in a subprocess, over each transport. */
describe('serve-mcp over stdio and Streamable HTTP', () => {
  let dir: string;
  const task = fixtureTasks('train', 'full').find((t) => t.id.endsWith('cancel-O-1'))!;
  const cli = fromRoot('bin', 'finalstate.js');
  const env = { ...process.env, FINALSTATE_DOMAIN_MODULES: fixtureModule } as Record<string, string>;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-serve-'));
    writeTaskSet(dir, 'fixture', '1', [task]);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function exercise(client: EpisodeMcpClient) {
    const tools = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'cancel_order',
      'fixture_faulty_refund',
      'get_order',
      'open_ticket',
      'update_email',
    ]);
    const cancelled = await client.callTool('cancel_order', { order_id: 'O-1', reason: 'customer_request' });
    assert.deepEqual([cancelled.isError, cancelled.structured], [false, { order_id: 'O-1', status: 'cancelled' }]);
    const again = await client.callTool('cancel_order', { order_id: 'O-1', reason: 'customer_request' });
    assert.equal(again.isError, true);
    const order = await client.callTool('get_order', { order_id: 'O-1' });
    assert.equal((order.structured as { status: string }).status, 'cancelled');
  }

  it('stdio: a spawned server serves the episode and tears it down when the client closes', async () => {
    const episodeId = uniqueEpisodeId('stdio');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        cli,
        'tasks',
        'serve-mcp',
        '--task',
        task.id,
        '--dir',
        dir,
        '--transport',
        'stdio',
        '--episode',
        episodeId,
      ],
      env,
      stderr: 'pipe',
    });
    const client = await EpisodeMcpClient.connect(transport);
    const { database } = episodeNames(stackKey(config.dataPath), episodeId);
    assert.equal(await databaseExists(database), true);
    await exercise(client);
    await client.close();
    await eventually(async () => !(await databaseExists(database)), 'the stdio server dropped its episode database');
  });

  it('http: a spawned server serves the episode at /mcp to a client with the token, and tears it down on SIGTERM', async () => {
    const episodeId = uniqueEpisodeId('http');
    const served = await spawnServeMcp(['--task', task.id, '--dir', dir, '--port', '0', '--episode', episodeId]);
    try {
      assert.equal(served.database, episodeNames(stackKey(config.dataPath), episodeId).database);
      assert.equal(fs.statSync(served.tokenFile).mode & 0o777, 0o600, 'the token file is readable by its owner only');
      const token = fs.readFileSync(served.tokenFile, 'utf8').trim();
      assert.match(token, /^[A-Za-z0-9_-]{43}$/);
      const client = await EpisodeMcpClient.connect(
        new StreamableHTTPClientTransport(new URL(served.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      await exercise(client);
      await client.close();
      await served.stop();
      await eventually(
        async () => !(await databaseExists(served.database)),
        'the http server dropped its episode database',
      );
      assert.equal(fs.existsSync(served.tokenFile), false, 'the token file is removed on shutdown');
    } finally {
      await served.stop();
    }
  });
});
