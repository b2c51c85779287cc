import type { DomainDefinition } from '../environment/domain.js';

/** Every built-in domain pack: one import and one entry per domain (domains/<name>/index.ts exports the pack). */
export const domains: DomainDefinition[] = [];
