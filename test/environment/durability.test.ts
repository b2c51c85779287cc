import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../workers/config.js';
import { durabilitySettings, isManaged, withClient } from '../../infra/stack/postgres.js';

// The embedded cluster trades machine-crash durability for provisioning speed unless postgres.durable is set.
const config = loadConfig();

test('the local cluster runs without fsync by default, and with it when postgres.durable is set', async (t) => {
  assert.deepEqual(durabilitySettings({ ...config, postgres: { ...config.postgres, durable: false } }), {
    fsync: 'off',
    full_page_writes: 'off',
  });
  assert.deepEqual(durabilitySettings({ ...config, postgres: { ...config.postgres, durable: true } }), {
    fsync: 'on',
    full_page_writes: 'on',
  });
  if (!isManaged(config) || config.postgres.durable)
    return t.skip('a server of its own (postgres.url), or a durable local one');
  const shown = await withClient(config, undefined, (c) => c.query<{ fsync: string }>('SHOW fsync'));
  assert.equal(shown.rows[0]!.fsync, 'off');
});
