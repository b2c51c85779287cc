import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commands } from '../../cli/commands/index.js';
import { runCli } from '../helpers/index.js';
import * as thinkingbox from '../../infra/stack/thinkingbox.js';
import { loadConfig } from '../../workers/config.js';

test('finalstate --help lists every subcommand', () => {
  const res = runCli(['--help']);
  assert.equal(res.status, 0);
  for (const command of commands) assert.match(res.stdout, new RegExp(`^  ${command.name}\\b`, 'm'));
});

test('an unknown command or subcommand is an error that shows the usage', () => {
  const unknown = runCli(['fly']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command "fly"/);
  const sub = runCli(['dev', 'sideways']);
  assert.equal(sub.status, 2);
  assert.match(sub.stderr, /expected up, down or status, got sideways/);
  const flag = runCli(['dev', 'status', '--colour']);
  assert.equal(flag.status, 2);
  assert.match(flag.stderr, /finalstate dev: .*--colour/);
});

test('dev status --json reports every component of the running stack', () => {
  const res = runCli(['dev', 'status', '--json']);
  const parsed = JSON.parse(res.stdout) as { components: { name: string; healthy: boolean; address: string }[] };
  assert.deepEqual(
    parsed.components.map((c) => c.name),
    ['postgres', 'temporal', 'temporal-ui', ...(thinkingbox.isConfigured(loadConfig()) ? ['thinkingbox'] : [])],
  );
  assert.equal(res.status, parsed.components.every((c) => c.healthy) ? 0 : 1);
});

test('tasks list without --dir shows the five built-in business domains, each with both splits and profiles', () => {
  const res = runCli(['tasks', 'list', '--json']);
  assert.equal(res.status, 0, res.stderr);
  const counts = new Map<string, number>();
  for (const t of JSON.parse(res.stdout) as Array<{ domain: string; split: string; profile: string }>) {
    const key = `${t.domain}/${t.split}/${t.profile}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const domain of ['retail', 'travel', 'insurance', 'neobank', 'consulting'])
    for (const split of ['train', 'eval'])
      for (const profile of ['full', 'mini'])
        assert.ok((counts.get(`${domain}/${split}/${profile}`) ?? 0) >= 300, `${domain}/${split}/${profile}`);
});
