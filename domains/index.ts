import type { DomainDefinition } from '../environment/domain.js';

/** Every built-in domain pack: import it from domains/<name>/index.js and list it here. */
export const domains: DomainDefinition[] = [];
