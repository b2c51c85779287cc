import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { LoadedConfig } from '../schemas/config.js';
import { policyAdminTokenFile } from '../runtime/clients/admin-token.js';
import { spawnPythonModule, waitUntilReady } from './python-module.js';

export interface PolicyServerOptions {
  port: number;
  servedModelName: string;
  maxBatchSize: number;
  batchWaitMs: number;
  threads: number;
  /** Serve LoRA adapters up to this rank (a campaign with update.lora); absent: the server's default (64). */
  lora?: { maxRank: number };
}

/**
 * The project's own policy server (python/finalstate/policy_server), until /health answers. The process goes into
 * `children` as soon as it is spawned, so whoever stops them stops it too when it never gets ready.
 */
export async function startPolicyServer(
  config: LoadedConfig,
  options: PolicyServerOptions,
  policy: { checkpointDir: string; version: number },
  logFile: string,
  children: ChildProcess[],
  log: (line: string) => void,
): Promise<void> {
  const policyUrl = `http://127.0.0.1:${options.port}`;
  const server = spawnPythonModule(
    config,
    'finalstate.policy_server',
    [
      '--model',
      policy.checkpointDir,
      '--port',
      String(options.port),
      '--served-model-name',
      options.servedModelName,
      '--policy-version',
      String(policy.version),
      '--max-batch-size',
      String(options.maxBatchSize),
      '--batch-wait-ms',
      String(options.batchWaitMs),
      '--threads',
      String(options.threads),
      '--admin-token-file',
      policyAdminTokenFile(config.dataPath),
      ...(options.lora ? ['--max-lora-rank', String(options.lora.maxRank)] : []),
    ],
    logFile,
  );
  children.push(server);
  await waitUntilReady(
    'policy server',
    server,
    logFile,
    async () => (await fetch(`${policyUrl}/health`, { signal: AbortSignal.timeout(2000) })).ok,
    180_000,
  );
  log(`policy server: ${policyUrl} (policy version ${policy.version}; log ${path.relative(process.cwd(), logFile)})`);
}
