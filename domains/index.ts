import type { DomainDefinition } from '../environment/domain.js';
import * as packs from './packs.js';

/** The built-in domain packs (register one with a single line in domains/packs.ts). */
export const domains: DomainDefinition[] = Object.values(packs as Record<string, DomainDefinition>);
