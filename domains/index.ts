import type { DomainDefinition } from '../environment/domain.js';
import { retail } from './retail/index.js';

export const domains: DomainDefinition[] = [retail];
