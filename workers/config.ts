import fs from 'node:fs';
import path from 'node:path';
import { ENV_OVERRIDES, StackConfig, type LoadedConfig } from '../schemas/config.js';
import { UserError } from '../core/errors.js';
import { projectRoot } from '../core/paths.js';

export class ConfigError extends UserError {
  override name = 'ConfigError';
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** Config file; default FINALSTATE_CONFIG or ./finalstate.config.json when it exists. */
  file?: string;
  root?: string;
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

function coerceEnv(name: string, raw: string, type: 'string' | 'number' | 'boolean'): unknown {
  if (type === 'string') return raw;
  if (type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n))
      throw new ConfigError(`config: environment variable ${name}=${JSON.stringify(raw)} is not a number`);
    return n;
  }
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`config: environment variable ${name}=${JSON.stringify(raw)} is not a boolean (true/false)`);
}

/** Load the stack config: defaults, then the config file, then environment overrides; validated by zod. */
export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const root = options.root ?? projectRoot;
  const sources: Record<string, string> = {};
  const explicitFile = options.file ?? env.FINALSTATE_CONFIG;
  const file = explicitFile ? path.resolve(root, explicitFile) : path.join(root, 'finalstate.config.json');
  let raw: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    try {
      raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(`config: ${file} is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new ConfigError(`config: ${file} must hold a JSON object`);
  } else if (explicitFile) {
    throw new ConfigError(`config: file ${file} does not exist`);
  }
  const fileLabel = path.relative(root, file) || file;
  const keyOrigin = (dotted: string) => sources[dotted] ?? (fs.existsSync(file) ? `file ${fileLabel}` : 'default');
  for (const { env: name, path: dotted, type } of ENV_OVERRIDES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setPath(raw, dotted, coerceEnv(name, value, type));
    sources[dotted] = `env ${name}`;
  }
  const parsed = StackConfig.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path.join('.') || '(root)';
      return `${key}: ${issue.message} (from ${keyOrigin(key)})`;
    });
    throw new ConfigError(
      lines.length === 1
        ? `config: ${lines[0]}`
        : `config: invalid configuration\n${lines.map((l) => `  ${l}`).join('\n')}`,
    );
  }
  const config = parsed.data;
  return { ...config, dataPath: path.resolve(root, config.dataDir), sources, configDir: path.dirname(file) };
}
