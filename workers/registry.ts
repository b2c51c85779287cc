import { domains as builtInDomains } from '../domains/index.js';
import { loadPackModule, type PackSource } from '../environment/pack-modules.js';
import { DomainRegistry } from '../environment/registry.js';
import type { DomainPack } from '../environment/domain.js';
import { loadConfig } from './config.js';
import { type LoadedConfig } from '../schemas/config.js';

/** The external packs to load: the config file's `domains` (relative to the file), then FINALSTATE_DOMAIN_MODULES (relative to the working directory). */
export function packSources(
  config: Pick<LoadedConfig, 'domains' | 'configDir'>,
  env: NodeJS.ProcessEnv = process.env,
): PackSource[] {
  const fromEnv = (env.FINALSTATE_DOMAIN_MODULES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return [
    ...config.domains.map((specifier) => ({ specifier, base: config.configDir, origin: 'config domains' })),
    ...fromEnv.map((specifier) => ({ specifier, base: process.cwd(), origin: 'FINALSTATE_DOMAIN_MODULES' })),
  ];
}

/**
 * The registry of built-in packs plus the external ones (`packSources`), so every process (CLI, episode worker, a
 * `tasks serve-mcp` subprocess) that reads the same configuration and environment serves the same packs.
 */
export async function defaultRegistry(
  options: { config?: Pick<LoadedConfig, 'domains' | 'configDir'>; env?: NodeJS.ProcessEnv } = {},
): Promise<DomainRegistry> {
  const env = options.env ?? process.env;
  const config = options.config ?? loadConfig({ env });
  const registry = new DomainRegistry();
  for (const domain of builtInDomains) registry.register(domain, { builtIn: true });
  const seen = new Set<DomainPack>();
  for (const source of packSources(config, env)) {
    for (const pack of await loadPackModule(source)) {
      if (seen.has(pack)) continue; // the same module named twice
      seen.add(pack);
      registry.register(pack);
    }
  }
  return registry;
}
