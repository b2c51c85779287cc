import fs from 'node:fs';
import path from 'node:path';
import type { LoadedConfig } from '../../schemas/config.js';
import { thinkingBoxHome, thinkingBoxHomeDir } from '../../environment/thinkingbox/home.js';
import { ThinkingBoxProxyClient, type ProxyAddress } from '../../environment/thinkingbox/proxy-client.js';
import { projectRoot } from '../../core/paths.js';
import { startDaemon, stopDaemon, waitFor } from './process.js';

function files(config: LoadedConfig) {
  return {
    pidFile: path.join(config.dataPath, 'run', 'thinkingbox-proxy.pid'),
    logFile: path.join(config.dataPath, 'logs', 'thinkingbox-proxy.log'),
  };
}

/** A ThinkingBox environment is configured: a running proxy's URL, or a home whose venv setup installed. */
export function isConfigured(config: LoadedConfig): boolean {
  if (config.thinkingbox.url) return true;
  const home = thinkingBoxHomeDir(config);
  return home !== undefined && fs.existsSync(path.resolve(projectRoot, config.thinkingbox.venv, 'bin', 'python'));
}

/** The proxy `dev up` starts (or the configured running one), with its bearer key read from its file. */
export function proxyAddress(config: LoadedConfig): ProxyAddress {
  const url = config.thinkingbox.url ?? `http://127.0.0.1:${config.thinkingbox.port}`;
  const keyFile = config.thinkingbox.apiKeyFile
    ? path.resolve(config.configDir, config.thinkingbox.apiKeyFile)
    : undefined;
  const apiKey = keyFile ? fs.readFileSync(keyFile, 'utf8').trim() : undefined;
  return apiKey ? { url, apiKey } : { url };
}

export function proxyHealthy(config: LoadedConfig): Promise<boolean> {
  return new ThinkingBoxProxyClient(proxyAddress(config)).healthy();
}

/**
 * Start ThinkingBox's session proxy (`tb mcp-start`) with the servers of thinkingbox-data, from ThinkingBox's venv,
 * logging under the data directory; a configured URL is used as it is (it must answer).
 */
export async function startProxy(config: LoadedConfig): Promise<'started' | 'running' | 'external'> {
  if (config.thinkingbox.url) {
    await waitFor('thinkingbox proxy', () => proxyHealthy(config), 10_000);
    return 'external';
  }
  if (await proxyHealthy(config)) return 'running';
  const home = thinkingBoxHome(config);
  const f = files(config);
  startDaemon({
    command: home.python,
    args: [
      '-m',
      'thinkingbox.cli.main',
      'mcp-start',
      '--servers',
      home.serversFile,
      '--port',
      String(config.thinkingbox.port),
    ],
    pidFile: f.pidFile,
    logFile: f.logFile,
    cwd: path.dirname(home.data),
    env: { ...process.env, THINKINGBOX_DATA: home.data, TYPESENSE_API_KEY: 'Fake' },
  });
  await waitFor('thinkingbox proxy', () => proxyHealthy(config), 60_000);
  return 'started';
}

export function stopProxy(config: LoadedConfig): Promise<boolean> {
  return stopDaemon(files(config).pidFile, 'mcp-start');
}

/** Restart a managed proxy (its session creation slows after many sessions); a configured URL is left alone. */
export async function restartProxy(config: LoadedConfig): Promise<void> {
  if (config.thinkingbox.url) return;
  await stopProxy(config);
  await startProxy(config);
}
