import { normalizePack, type DomainDefinition } from '../environment/domain.js';
import { consulting } from './consulting/index.js';
import { insurance } from './insurance/index.js';
import { neobank } from './neobank/index.js';
import { retail } from './retail/index.js';
import { travel } from './travel/index.js';

export const domains: DomainDefinition[] = [
  retail,
  travel,
  normalizePack(insurance),
  normalizePack(neobank),
  normalizePack(consulting),
];

/**
 * Where `tasks generate` writes a built-in pack's sets when no --dir is given. Every folder is inside tasks/, which
 * the demo's evaluation reads with its sub-folders.
 */
export const builtInTaskDirs: Record<string, string> = {
  retail: 'tasks',
  travel: 'tasks',
  insurance: 'tasks/insurance',
  neobank: 'tasks/neobank',
  consulting: 'tasks/consulting',
};
