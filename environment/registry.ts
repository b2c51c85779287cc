import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { domains as builtInDomains } from '../domains/index.js';
import { UserError } from '../infra/errors.js';
import type { DomainDefinition } from './domain.js';
import { checkDomainDefinition } from './domain-check.js';

/** Maps a domain name to its pack. The built-in packs come from domains/index.ts; tests and plugins register more. */
export class DomainRegistry {
  private readonly byName = new Map<string, DomainDefinition>();

  constructor(initial: DomainDefinition[] = []) {
    for (const domain of initial) this.register(domain);
  }

  register(domain: DomainDefinition): void {
    checkDomainDefinition(domain);
    const existing = this.byName.get(domain.name);
    if (existing && existing !== domain) throw new UserError(`domain registry: a different domain named ${JSON.stringify(domain.name)} is already registered`);
    this.byName.set(domain.name, domain);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get(name: string): DomainDefinition {
    const domain = this.byName.get(name);
    if (!domain) throw new UserError(`unknown domain ${JSON.stringify(name)} (registered: ${this.names().join(', ') || 'none'})`);
    return domain;
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  all(): DomainDefinition[] {
    return this.names().map((n) => this.byName.get(n)!);
  }
}

/**
 * The registry of built-in packs plus the modules named in FINALSTATE_DOMAIN_MODULES (comma-separated paths of ESM
 * modules that export `domains: DomainDefinition[]`), so an external process (e.g. `tasks serve-mcp`) can serve a
 * pack that is not built in.
 */
export async function defaultRegistry(env: NodeJS.ProcessEnv = process.env): Promise<DomainRegistry> {
  const registry = new DomainRegistry(builtInDomains);
  const modules = (env.FINALSTATE_DOMAIN_MODULES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const modulePath of modules) {
    let loaded: { domains?: DomainDefinition[] };
    try {
      loaded = (await import(pathToFileURL(path.resolve(modulePath)).href)) as { domains?: DomainDefinition[] };
    } catch (err) {
      throw new UserError(`FINALSTATE_DOMAIN_MODULES: cannot load ${modulePath}: ${(err as Error).message}`);
    }
    if (!Array.isArray(loaded.domains)) throw new UserError(`FINALSTATE_DOMAIN_MODULES: ${modulePath} does not export \`domains: DomainDefinition[]\``);
    for (const domain of loaded.domains) registry.register(domain);
  }
  return registry;
}
