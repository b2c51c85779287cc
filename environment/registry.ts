import { UserError } from '../core/errors.js';
import { normalizePack, type DomainDefinition, type DomainPack } from './domain.js';
import { checkDomainDefinition } from './domain-check.js';
import { invariantSettingProblems } from './invariants.js';

/** How to register a pack, for error messages. */
export const REGISTER_PACK_HINT =
  'register the pack that defines it: name its built module (or its directory, or package) in "domains" of the configuration file (FINALSTATE_CONFIG, else finalstate.config.json of the finalstate checkout; a scaffolded pack\'s own file says "domains": ["./dist/src/index.js"]), or in FINALSTATE_DOMAIN_MODULES=path[,...]; see docs/domain-packs.md#how-pack-module-paths-resolve';

/** Maps a domain name to its pack. It knows no pack itself: workers/registry.ts registers the built-in and configured ones. */
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
    const problems = invariantSettingProblems(domain);
    if (problems.length) throw new UserError(`domain ${domain.name}: invalid pack:\n  ${problems.join('\n  ')}`);
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
    if (!domain) throw new UserError(this.unknownDomain(name));
    return domain;
  }

  /** Why `name` cannot be served, and how to register its pack. */
  unknownDomain(name: string): string {
    return `unknown domain ${JSON.stringify(name)} (registered: ${this.names().join(', ') || 'none'}); ${REGISTER_PACK_HINT}`;
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  all(): DomainDefinition[] {
    return this.names().map((n) => this.byName.get(n)!);
  }
}
