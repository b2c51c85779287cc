import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../workers/config.js';

function tempRoot(config?: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-config-'));
  if (config !== undefined)
    fs.writeFileSync(
      path.join(dir, 'finalstate.config.json'),
      typeof config === 'string' ? config : JSON.stringify(config),
    );
  return dir;
}

test('defaults apply when there is no file and no environment', () => {
  const config = loadConfig({ root: tempRoot(), env: {} });
  assert.equal(config.temporal.address, '127.0.0.1:7233');
  assert.equal(config.temporal.uiPort, 8233);
  assert.equal(config.temporal.retentionDays, 30);
  assert.equal(config.postgres.port, 55432);
  assert.ok(config.dataPath.endsWith('.data'));
});

test('the file overrides defaults and the environment overrides the file', () => {
  const root = tempRoot({ postgres: { port: 6000 }, temporal: { uiPort: 9000 } });
  const config = loadConfig({ root, env: { FINALSTATE_PG_PORT: '6001' } });
  assert.equal(config.postgres.port, 6001);
  assert.equal(config.temporal.uiPort, 9000);
  assert.equal(config.sources['postgres.port'], 'env FINALSTATE_PG_PORT');
});

test('DATABASE_URL switches to an existing server', () => {
  const config = loadConfig({ root: tempRoot(), env: { DATABASE_URL: 'postgres://u:p@db.internal:5432/app' } });
  assert.equal(config.postgres.url, 'postgres://u:p@db.internal:5432/app');
});

test('DATABASE_URL must be a PostgreSQL URL: the error is one line that never repeats the value', () => {
  for (const url of ['localhost:5432', 'postgres//u:secret@db/app', 'http://u:secret@db/app', 'u:secret@db']) {
    assert.throws(
      () => loadConfig({ root: tempRoot(), env: { DATABASE_URL: url } }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(
          err.message,
          'config: postgres.url: not a PostgreSQL URL: expected postgres://USER:PASSWORD@HOST:PORT/DATABASE (from env DATABASE_URL)',
        );
        return true;
      },
      url,
    );
  }
  assert.ok(loadConfig({ root: tempRoot(), env: { DATABASE_URL: 'postgresql://u@db/app' } }).postgres.url);
});

test('a wrong value in the file is an error naming the key and the file', () => {
  const root = tempRoot({ temporal: { uiPort: 99999 } });
  assert.throws(
    () => loadConfig({ root, env: {} }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /temporal\.uiPort/);
      assert.match(err.message, /finalstate\.config\.json/);
      return true;
    },
  );
});

test('a non-numeric environment value names the variable', () => {
  assert.throws(
    () => loadConfig({ root: tempRoot(), env: { FINALSTATE_PG_PORT: 'fifty' } }),
    /FINALSTATE_PG_PORT="fifty" is not a number/,
  );
});

test('an unknown key is rejected, not ignored', () => {
  assert.throws(
    () => loadConfig({ root: tempRoot({ temporal: { adress: 'x:1' } }), env: {} }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /temporal/);
      assert.match(err.message, /adress/);
      return true;
    },
  );
});

test('malformed JSON and a missing explicit file are clear errors', () => {
  assert.throws(
    () => loadConfig({ root: tempRoot('{ "temporal": '), env: {} }),
    /finalstate\.config\.json is not valid JSON/,
  );
  assert.throws(
    () => loadConfig({ root: tempRoot(), env: { FINALSTATE_CONFIG: 'nope.json' } }),
    /nope\.json does not exist/,
  );
});
