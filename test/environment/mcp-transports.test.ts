import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { withClient } from '../../infra/stack/postgres.js';
import { loadConfig } from '../../infra/config.js';
import { fromRoot } from '../../infra/paths.js';
import { EpisodeMcpClient } from '../../environment/mcp-client.js';
import { episodeDatabaseName } from '../../environment/naming.js';
import { writeTaskSet } from '../../environment/task-set.js';
import { fixtureModule, fixtureTasks, uniqueEpisodeId } from './harness.js';

const config = loadConfig();
const databaseExists = (name: string) =>
  withClient(config, undefined, async (c) => ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0);

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
    assert.deepEqual(tools.map((t) => t.name).sort(), ['cancel_order', 'fixture_faulty_refund', 'get_order', 'open_ticket', 'update_email']);
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
      args: [cli, 'tasks', 'serve-mcp', '--task', task.id, '--dir', dir, '--transport', 'stdio', '--episode', episodeId],
      env,
      stderr: 'pipe',
    });
    const client = await EpisodeMcpClient.connect(transport);
    assert.equal(await databaseExists(episodeDatabaseName(episodeId)), true);
    await exercise(client);
    await client.close();
    await eventually(async () => !(await databaseExists(episodeDatabaseName(episodeId))), 'the stdio server dropped its episode database');
  });

  it('http: a spawned server serves the episode at /mcp and tears it down on SIGTERM', async () => {
    const episodeId = uniqueEpisodeId('http');
    const child = spawn(process.execPath, [cli, 'tasks', 'serve-mcp', '--task', task.id, '--dir', dir, '--transport', 'http', '--port', '0', '--episode', episodeId], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      while (!out.includes('\n')) {
        const [chunk] = (await Promise.race([once(child.stdout, 'data'), once(child, 'exit').then(() => assert.fail('server exited early'))])) as [string];
        out += chunk;
      }
      const { url, database } = JSON.parse(out.split('\n')[0]!) as { url: string; database: string };
      assert.equal(database, episodeDatabaseName(episodeId));
      const client = await EpisodeMcpClient.connect(new StreamableHTTPClientTransport(new URL(url)));
      await exercise(client);
      await client.close();
      child.kill('SIGTERM');
      await once(child, 'exit');
      await eventually(async () => !(await databaseExists(database)), 'the http server dropped its episode database');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
