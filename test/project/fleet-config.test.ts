import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/index.js';

// The three fleet mistakes an operator can write into a campaign file, each refused by `finalstate campaign start`
// before it connects to anything (the stack may be down): a user error (exit 2) naming the key and the value it found.
const base = {
  campaignId: 'fleet-config-check',
  policy: {
    kind: 'served',
    client: { baseUrl: 'http://rollout-0.internal:8000', model: 'policy', serverKind: 'vllm' },
  },
  tasks: { train: { taskSet: 'tasks', split: 'train' }, eval: { taskSet: 'tasks', split: 'eval' } },
  steps: 1,
  update: { baseModel: '/nonexistent/base-model' },
};
const rollout = (n: number, suffix = '') => ({ url: `http://rollout-${n}.internal:8000${suffix}`, kind: 'vllm' });

test('campaign start refuses no server, a server listed twice and fleet.minServers above the count, naming key and value', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-fleet-config-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const refusal = (name: string, config: object) => {
    const file = path.join(dir, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify({ ...base, ...config }));
    const run = runCli(['campaign', 'start', file, '--skip-base-model-check']);
    assert.equal(run.status, 2, `${name}: exit ${run.status}\n${run.stdout}${run.stderr}`);
    t.diagnostic(`${name}: ${run.stderr.trim().split('\n').slice(-1)[0]}`);
    return run.stderr;
  };

  assert.match(refusal('no-server', { policyServers: [] }), /policyServers: is \[\] \(no server\)/);
  assert.match(
    refusal('duplicate', { policyServers: [rollout(0), rollout(1), rollout(0, '/')] }),
    /policyServers\.2\.url: duplicate server URL "http:\/\/rollout-0\.internal:8000\/": the same server as entry 0/,
  );
  assert.match(
    refusal('min-servers', { policyServers: [rollout(0), rollout(1)], fleet: { minServers: 3 } }),
    /fleet\.minServers: fleet\.minServers is 3, above the 2 rollout servers policyServers lists/,
  );
  assert.match(
    refusal('min-servers-of-one', { fleet: { minServers: 2 } }),
    /fleet\.minServers is 2, above the 1 rollout server of policy\.client\.baseUrl/,
  );
});
