import { addDays, addHours, defineDomain, generateFromScenarios } from 'finalstate/domain';
import { insuranceScenarios } from './generator/index.js';
import { insuranceGrading } from './grading.js';
import { insuranceInvariants } from './invariants.js';
import { insurancePolicy } from './policy.js';
import { insuranceRuleBreakingPath } from './rule-breaking.js';
import { insuranceSchemaSql } from './schema.js';
import { insuranceSeed, insuranceSequences } from './seed.js';
import { insuranceMiniTools, insuranceTools } from './tools/index.js';

const profileTools = { full: insuranceTools.map((t) => t.name), mini: insuranceMiniTools };

/**
 * Auto insurance: the claims and service desk of Harborline Mutual. Written against the public pack API
 * (`finalstate/domain`) only, like a pack outside the repository.
 */
export const insurance = defineDomain({
  name: 'insurance',
  version: '1.0.0',
  schemaSql: insuranceSchemaSql,
  sequences: insuranceSequences,
  seed: insuranceSeed,
  grading: insuranceGrading,
  policy: insurancePolicy,
  tools: insuranceTools,
  profileTools,
  invariants: insuranceInvariants,
  ruleBreakingPath: insuranceRuleBreakingPath,
  generateTasks: (options) =>
    generateFromScenarios(
      {
        domain: 'insurance',
        scenarios: insuranceScenarios,
        tools: insuranceTools,
        profileTools,
        clock: (rng) => addHours(addDays(new Date('2026-03-02T00:00:00Z'), rng.int(0, 90)), rng.int(8, 18)),
      },
      options,
    ),
});

export const domains = [insurance];
