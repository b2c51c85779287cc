import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/index.js';

test('a missing THINKINGBOX_HOME is one line naming the setting, exit 2', () => {
  const res = runCli(['tasks', 'import-thinkingbox', '--out', '/tmp/never-written.jsonl'], {
    THINKINGBOX_HOME: '/nonexistent/thinkingbox',
  });
  assert.equal(res.status, 2, res.stderr);
  const lines = res.stderr.trim().split('\n');
  assert.equal(lines.length, 1, res.stderr);
  assert.match(lines[0]!, /THINKINGBOX_HOME \(config key thinkingbox\.home\) is \/nonexistent\/thinkingbox/);
});
