import fs from 'node:fs';
import path from 'node:path';
import { stopVllm } from '../../infra/vllm-server.js';
import { buildTinyModel, startTestVllm } from './vllm.js';

/**
 * The vLLM server test/run.sh shares with every TypeScript test:
 *   node dist/test/helpers/vllm-suite.js start DIR   builds the tiny model in DIR, starts vLLM on it (it outlives this
 *                                                    process), writes DIR/server.json and prints the variables the
 *                                                    tests read (FINALSTATE_VLLM_URL, _MODEL, _WEIGHTS) as KEY=VALUE
 *   node dist/test/helpers/vllm-suite.js stop DIR    stops it (by the pid in DIR/server.json) and removes DIR
 */

async function main(): Promise<void> {
  const [command, dir] = process.argv.slice(2);
  if (!dir || (command !== 'start' && command !== 'stop'))
    throw new Error('usage: node dist/test/helpers/vllm-suite.js start|stop DIR');
  const state = path.join(dir, 'server.json');
  if (command === 'stop') {
    if (fs.existsSync(state)) await stopVllm((JSON.parse(fs.readFileSync(state, 'utf8')) as { pid: number }).pid);
    fs.rmSync(dir, { recursive: true, force: true });
    return;
  }
  fs.mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const server = await startTestVllm(buildTinyModel(path.join(dir, 'model')));
  fs.writeFileSync(state, JSON.stringify({ pid: server.pid, url: server.url, logFile: server.logFile }));
  process.stderr.write(`vLLM ready at ${server.url} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  process.stdout.write(
    `FINALSTATE_VLLM_URL=${server.url}\nFINALSTATE_VLLM_MODEL=${server.servedModelName}\nFINALSTATE_VLLM_WEIGHTS=${server.modelDir}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
