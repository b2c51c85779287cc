import { domains as builtInDomains } from '../domains/index.js';
import { loadConfig, type LoadedConfig } from '../infra/config.js';
import { UserError } from '../infra/errors.js';
import { normalizePack, type DomainDefinition, type DomainPack } from './domain.js';
import { checkDomainDefinition } from './domain-check.js';
import { loadPackModule, type PackSource } from './pack-modules.js';

/** How to register a pack, for error messages. */
export const REGISTER_PACK_HINT =
  'register an external pack with `"domains": ["./path/to/pack/dist/index.js"]` (or a package name) in finalstate.config.json, or FINALSTATE_DOMAIN_MODULES=path[,...]; see docs/domain-packs.md';

/** Maps a domain name to its pack. The built-in packs come from domains/index.ts; tests and plugins register more. */
export class DomainRegistry {
  private readonly byName = new Map<string, DomainDefinition>();
  private readonly given = new Map<string, DomainPack>();
  private readonly builtIn = new Set<string>();

  constructor(initial: DomainPack[] = []) {
    for (const domain of initial) this.register(domain);
  }

  register(pack: DomainPack, options: { builtIn?: boolean } = {}): void {
    const domain = normalizePack(pack);
    checkDomainDefinition(domain);
    const existing = this.given.get(domain.name);
    if (existing && existing !== pack) throw new UserError(`domain registry: a different domain named ${JSON.stringify(domain.name)} is already registered`);
    this.byName.set(domain.name, domain);
    this.given.set(domain.name, pack);
    if (options.builtIn) this.builtIn.add(domain.name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Whether the pack ships with finalstate (its task sets live in the project's tasks/). */
  isBuiltIn(name: string): boolean {
    return this.builtIn.has(name);
  }

  get(name: string): DomainDefinition {
    const domain = this.byName.get(name);
    if (!domain) throw new UserError(`unknown domain ${JSON.stringify(name)} (registered: ${this.names().join(', ') || 'none'}); ${REGISTER_PACK_HINT}`);
    return domain;
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  all(): DomainDefinition[] {
    return this.names().map((n) => this.byName.get(n)!);
  }
}

/** The external packs to load: the config file's `domains` (relative to the file), then FINALSTATE_DOMAIN_MODULES (relative to the working directory). */
export function packSources(config: Pick<LoadedConfig, 'domains' | 'configDir'>, env: NodeJS.ProcessEnv = process.env): PackSource[] {
  const fromEnv = (env.FINALSTATE_DOMAIN_MODULES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return [
    ...config.domains.map((specifier) => ({ specifier, base: config.configDir, origin: 'config domains' })),
    ...fromEnv.map((specifier) => ({ specifier, base: process.cwd(), origin: 'FINALSTATE_DOMAIN_MODULES' })),
  ];
}

/**
 * The registry of built-in packs plus the external ones (`packSources`), so every process (CLI, episode worker, a
 * `tasks serve-mcp` subprocess) that reads the same configuration and environment serves the same packs.
 */
export async function defaultRegistry(options: { config?: Pick<LoadedConfig, 'domains' | 'configDir'>; env?: NodeJS.ProcessEnv } = {}): Promise<DomainRegistry> {
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
