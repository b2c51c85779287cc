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
 * Where `tasks generate` writes a built-in pack's sets when no --dir is given: `tasks/<name>/` for every pack, all
 * inside tasks/, which the demo's evaluation reads with its sub-folders. Listed by name, the order `tasks list`
 * reads them in.
 */
export const builtInTaskDirs: Record<string, string> = {
  consulting: 'tasks/consulting',
  insurance: 'tasks/insurance',
  neobank: 'tasks/neobank',
  retail: 'tasks/retail',
  travel: 'tasks/travel',
};
