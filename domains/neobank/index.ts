import { addDays, addHours, defineDomain, generateFromScenarios } from 'finalstate/domain';
import { neobankScenarios } from './generator/index.js';
import { neobankGrading } from './grading.js';
import { neobankInvariants } from './invariants.js';
import { neobankPolicy } from './policy.js';
import { neobankRuleBreakingPath } from './rule-breaking.js';
import { neobankSchemaSql } from './schema.js';
import { neobankSeed, neobankSequences } from './seed.js';
import { neobankMiniTools, neobankTools } from './tools/index.js';

const profileTools = { full: neobankTools.map((t) => t.name), mini: neobankMiniTools };

/**
 * Neobank internal IT support: the service desk of Ledgerly, a digital bank (access under least privilege and
 * approval chains, devices, licences, security incidents). Written against the public pack API (`finalstate/domain`)
 * only, like a pack outside the repository.
 */
export const neobank = defineDomain({
  name: 'neobank',
  version: '1.0.0',
  schemaSql: neobankSchemaSql,
  sequences: neobankSequences,
  seed: neobankSeed,
  grading: neobankGrading,
  policy: neobankPolicy,
  tools: neobankTools,
  profileTools,
  invariants: neobankInvariants,
  ruleBreakingPath: neobankRuleBreakingPath,
  generateTasks: (options) =>
    generateFromScenarios(
      {
        domain: 'neobank',
        scenarios: neobankScenarios,
        tools: neobankTools,
        profileTools,
        clock: (rng) => addHours(addDays(new Date('2026-02-02T00:00:00Z'), rng.int(0, 90)), rng.int(8, 18)),
      },
      options,
    ),
});

export const domains = [neobank];
