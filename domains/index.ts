import type { DomainDefinition } from '../environment/domain.js';
import { retail } from './retail/index.js';
import { travel } from './travel/index.js';

export const domains: DomainDefinition[] = [retail, travel];
