import { UserError } from '../core/errors.js';
import { normalizePack, type DomainDefinition, type DomainPack } from './domain.js';
import { checkDomainDefinition } from './domain-check.js';

/** How to register a pack, for error messages. */
export const REGISTER_PACK_HINT =
  'register an external pack with `"domains": ["./path/to/pack/dist/index.js"]` (or a package name) in finalstate.config.json, or FINALSTATE_DOMAIN_MODULES=path[,...]; see docs/domain-packs.md';

/** Maps a domain name to its pack. It knows no pack itself: wiring/registry.ts registers the built-in and configured ones. */
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
    if (existing && existing !== pack)
      throw new UserError(
        `domain registry: a different domain named ${JSON.stringify(domain.name)} is already registered`,
      );
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
    if (!domain)
      throw new UserError(
        `unknown domain ${JSON.stringify(name)} (registered: ${this.names().join(', ') || 'none'}); ${REGISTER_PACK_HINT}`,
      );
    return domain;
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  all(): DomainDefinition[] {
    return this.names().map((n) => this.byName.get(n)!);
  }
}
