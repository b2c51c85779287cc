import { addDays, addHours, auditGrading, defineDomain, generateFromScenarios, ticketGrading } from 'finalstate/domain';
import { invariants, scenarios } from './generator.js';
import { policy } from './policy.js';
import { ruleBreakingPath } from './rule-breaking.js';
import { schemaSql } from './schema.js';
import { tools } from './tools.js';

/** Tools per profile: full offers every tool; mini (tiny models) at most 6. */
const profileTools = { full: tools.map((t) => t.name), mini: ['get_rental', 'extend_rental'] };

/** The pack finalstate loads: this module exports `domains` (see finalstate.config.json). */
export const pack = defineDomain({
  name: '__PACK_NAME__',
  version: '0.1.0',
  schemaSql,
  sequences: { ticket: { prefix: 'TCK-', start: 1000 } },
  seed: {},
  grading: {
    members: { primaryKey: ['member_id'], ignoreColumns: [], canonicalize: {} },
    rentals: { primaryKey: ['rental_id'], ignoreColumns: [], canonicalize: {} },
    tickets: ticketGrading,
    audit_log: auditGrading,
  },
  policy,
  tools,
  profileTools,
  invariants,
  ruleBreakingPath,
  generateTasks: (options) =>
    generateFromScenarios(
      {
        domain: '__PACK_NAME__',
        scenarios,
        tools,
        profileTools,
        clock: (rng) => addHours(addDays(new Date('2026-03-02T00:00:00Z'), rng.int(0, 90)), rng.int(8, 18)),
      },
      options,
    ),
});

export const domains = [pack];
