import { addDays, addHours, defineDomain, generateFromScenarios } from 'finalstate/domain';
import { consultingScenarios } from './generator/index.js';
import { consultingGrading } from './grading.js';
import { consultingInvariants } from './invariants.js';
import { consultingPolicy } from './policy.js';
import { consultingRuleBreakingPath } from './rule-breaking.js';
import { consultingSchemaSql } from './schema.js';
import { consultingSeed, consultingSequences } from './seed.js';
import { consultingMiniTools, consultingTools } from './tools/index.js';

const profileTools = { full: consultingTools.map((t) => t.name), mini: consultingMiniTools };

/**
 * Consulting firm IT and HR support: the help desk of Meridian Partners (leave, expenses, access, equipment,
 * timesheets, HR records). Written against the public pack API (`finalstate/domain`) only, like a pack outside the
 * repository.
 */
export const consulting = defineDomain({
  name: 'consulting',
  version: '1.0.0',
  schemaSql: consultingSchemaSql,
  sequences: consultingSequences,
  seed: consultingSeed,
  grading: consultingGrading,
  policy: consultingPolicy,
  tools: consultingTools,
  profileTools,
  invariants: consultingInvariants,
  ruleBreakingPath: consultingRuleBreakingPath,
  generateTasks: (options) =>
    generateFromScenarios(
      {
        domain: 'consulting',
        scenarios: consultingScenarios,
        tools: consultingTools,
        profileTools,
        clock: (rng) => addHours(addDays(new Date('2026-04-06T00:00:00Z'), rng.int(0, 90)), rng.int(8, 18)),
      },
      options,
    ),
});

export const domains = [consulting];
