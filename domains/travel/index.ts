import { addDays, addHours, type DomainDefinition, generateFromScenarios } from 'finalstate/domain';
import { travelScenarios } from './generator/index.js';
import { travelGrading } from './grading.js';
import { travelPolicy } from './policy.js';
import { travelRuleBreakingPath } from './rule-breaking.js';
import { travelSchemaSql } from './schema.js';
import { travelSeed, travelSequences } from './seed.js';
import { travelMiniTools, travelTools } from './tools/index.js';

const profileTools = { full: travelTools.map((t) => t.name), mini: travelMiniTools };

/** Travel: the traveller-support desk of a corporate travel agency (hotels, flights, company approvals). */
export const travel: DomainDefinition = {
  name: 'travel',
  version: '1.0.0',
  schemaSql: travelSchemaSql,
  sequences: travelSequences,
  seed: travelSeed,
  grading: travelGrading,
  policy: travelPolicy,
  tools: travelTools,
  profileTools,
  generateTasks: (options) =>
    generateFromScenarios(
      {
        domain: 'travel',
        scenarios: travelScenarios,
        tools: travelTools,
        profileTools,
        clock: (rng) => addHours(addDays(new Date('2026-03-02T00:00:00Z'), rng.int(0, 90)), rng.int(7, 19)),
      },
      options,
    ),
  ruleBreakingPath: travelRuleBreakingPath,
};
