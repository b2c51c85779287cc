import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromRoot } from '../../../core/paths.js';
import { loadConfig } from '../../../workers/config.js';
import { answerOf, rawHttp, type RawResponse } from '../../environment/harness.js';
import { freePort, startProcess } from '../../helpers/index.js';
import type { ProbeResult, SecurityProbe } from '../probe.js';

interface Served {
  url: string;
  token: string;
  modelDir: string;
}

/** The real policy server (`python -m finalstate.policy_server`) on a tiny random model, with an admin token file. */
async function withPolicyServer(fn: (served: Served) => Promise<ProbeResult[]>): Promise<ProbeResult[]> {
  const config = loadConfig();
  const python = fromRoot(config.python.venv, 'bin', 'python');
  const env = { PYTHONPATH: fromRoot('python') };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-probe-policy-'));
  const built = spawnSync(python, ['-m', 'finalstate.testing.tiny_model', path.join(dir, 'model')], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`tiny model: ${built.stderr}`);
  const modelDir = (JSON.parse(built.stdout.trim().split('\n').pop()!) as { dir: string }).dir;
  const tokenFile = path.join(dir, 'secrets', 'policy-server.token');
  const port = await freePort();
  const server = startProcess(
    python,
    [
      '-m',
      'finalstate.policy_server',
      '--model',
      modelDir,
      '--port',
      String(port),
      '--device',
      'cpu',
      '--threads',
      '1',
      '--admin-token-file',
      tokenFile,
    ],
    /policy server ready/,
    env,
  );
  try {
    await server.started;
    return await fn({ url: `http://127.0.0.1:${port}`, token: fs.readFileSync(tokenFile, 'utf8').trim(), modelDir });
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The admin routes (vLLM's dev-mode routes) and /v1/models, attacked as a web page and as another local client. */
const policyServer: SecurityProbe = {
  area: 'policy-server',
  name: 'the admin routes refuse cross-site, rebound-Host and token-less requests; /v1/models hides the checkpoint',
  run: () =>
    withPolicyServer(async ({ url, token, modelDir }) => {
      const port = new URL(url).port;
      const auth = { authorization: `Bearer ${token}` };
      const json = { 'content-type': 'application/json' };
      const state = async () => {
        const paused = await rawHttp(`${url}/is_paused`, { method: 'GET', headers: auth });
        const health = await rawHttp(`${url}/health`, { method: 'GET' });
        return {
          paused: (JSON.parse(paused.body) as { is_paused: boolean }).is_paused,
          version: (JSON.parse(health.body) as { policy_version: number }).policy_version,
        };
      };
      // the guards, not a bad request, refuse what follows: the same pause and resume with the token go through
      const control = [
        (await rawHttp(`${url}/pause`, { headers: { ...auth, ...json }, body: {} })).status,
        (await rawHttp(`${url}/resume`, { headers: { ...auth, ...json }, body: {} })).status,
      ];
      const reload = { method: 'reload_weights', kwargs: { weights_path: modelDir, policy_version: 99 } };
      const wrong = { authorization: 'Bearer wrong-token-0123456789' };
      const rebound = { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` };
      const tries: [string, string, Record<string, string>, unknown, number][] = [
        [
          'a web page POSTs /pause as text/plain (no CORS preflight), Origin http://evil.example, no token',
          '/pause',
          { 'content-type': 'text/plain', origin: 'http://evil.example' },
          {},
          403,
        ],
        [
          'a text/plain POST /pause with the token, from the own address',
          '/pause',
          { ...auth, 'content-type': 'text/plain' },
          {},
          415,
        ],
        [
          'a form POST (application/x-www-form-urlencoded) of reload_weights with the token',
          '/collective_rpc',
          { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
          reload,
          415,
        ],
        [
          `DNS rebinding: JSON POST /pause with Host rebind.example:${port}, its Origin, and the token`,
          '/pause',
          { ...auth, ...json, ...rebound },
          {},
          403,
        ],
        [
          'JSON POST /pause with the token from a foreign Origin (http://evil.example)',
          '/pause',
          { ...auth, ...json, origin: 'http://evil.example' },
          {},
          403,
        ],
        ['JSON POST /pause from the own address without a token', '/pause', json, {}, 401],
        ['JSON POST /pause with a wrong token', '/pause', { ...json, ...wrong }, {}, 401],
        ['reload_weights of another checkpoint as policy_version 99, no token', '/collective_rpc', json, reload, 401],
        [
          'reload_weights of another checkpoint as policy_version 99, a wrong token',
          '/collective_rpc',
          { ...json, ...wrong },
          reload,
          401,
        ],
      ];
      const results: ProbeResult[] = [];
      for (const [attempt, route, headers, body, expected] of tries) {
        const res = await rawHttp(`${url}${route}`, { headers, body });
        const after = await state();
        results.push({
          attempt,
          outcome: `${answerOf(res)}; afterwards paused ${after.paused}, policy version ${after.version} (with the token: pause ${control[0]}, resume ${control[1]})`,
          held: res.status === expected && !after.paused && after.version === 0 && control.every((s) => s === 200),
        });
      }
      const shows = (res: RawResponse) => res.body.includes(modelDir);
      const models = (headers: Record<string, string>) => rawHttp(`${url}/v1/models`, { method: 'GET', headers });
      const [viaRebinding, anonymous, authorized] = [await models(rebound), await models({}), await models(auth)];
      results.push(
        {
          attempt: `DNS rebinding: GET /v1/models with Host rebind.example:${port}`,
          outcome: `${answerOf(viaRebinding)}; checkpoint path in the answer: ${shows(viaRebinding)}`,
          held: viaRebinding.status === 403 && !shows(viaRebinding),
        },
        {
          attempt: 'GET /v1/models from the own address without the token: is the checkpoint path shown?',
          outcome: `HTTP ${anonymous.status}; checkpoint path in the answer: ${shows(anonymous)} (with the token: ${shows(authorized)})`,
          held: anonymous.status === 200 && !shows(anonymous) && shows(authorized),
        },
      );
      return results;
    }),
};

const probes: SecurityProbe[] = [policyServer];
export default probes;
