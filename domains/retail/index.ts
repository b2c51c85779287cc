import { addDays, addHours, type DomainDefinition, generateFromScenarios } from 'finalstate/domain';
import { retailScenarios } from './generator/index.js';
import { retailGrading } from './grading.js';
import { retailPolicy } from './policy.js';
import { retailRuleBreakingPath } from './rule-breaking.js';
import { retailSchemaSql } from './schema.js';
import { retailSeed, retailSequences } from './seed.js';
import { retailMiniTools, retailTools } from './tools/index.js';

const profileTools = { full: retailTools.map((t) => t.name), mini: retailMiniTools };

/** Retail: the support back office of an online electronics and home-goods store. */
export const retail: DomainDefinition = {
  name: 'retail',
  version: '1.0.0',
  schemaSql: retailSchemaSql,
  sequences: retailSequences,
  seed: retailSeed,
  grading: retailGrading,
  policy: retailPolicy,
  tools: retailTools,
  profileTools,
  generateTasks: (options) =>
    generateFromScenarios(
      {
        domain: 'retail',
        scenarios: retailScenarios,
        tools: retailTools,
        profileTools,
        clock: (rng) => addHours(addDays(new Date('2026-03-02T00:00:00Z'), rng.int(0, 90)), rng.int(8, 18)),
      },
      options,
    ),
  ruleBreakingPath: retailRuleBreakingPath,
};
