/**
 * The public domain-pack API, the package export `finalstate/domain` (types in dist/domains/api.d.ts): everything a
 * pack needs, and nothing else of finalstate is part of the contract. Guide and reference: docs/domain-packs.md.
 */

/** The zod instance finalstate validates tool arguments with; tool input shapes must be built from it. */
export { z } from 'zod';

export type {
  DomainDefinition,
  DomainPack,
  TaskGeneratorOptions,
  TaskInvariant,
  ToolContext,
  ToolDefinition,
} from '../environment/domain.js';
export { isToolRejection, TOOL_REJECTION, ToolRejection } from '../environment/domain.js';
export {
  BUILT_IN_INVARIANTS,
  invariantViolations,
  REFUSAL_TAGS,
  refusalsAreReadOnly,
  refusalsWriteOnly,
  type BuiltInInvariant,
  type InvariantViolation,
} from '../environment/invariants.js';
export type { Canonicalization, TableGrading } from '../schemas/domain.js';
export type { Profile, Split, TaskInput, ToolCall } from '../schemas/task.js';

export { defineDomain, defineTool } from './common/tool.js';
export {
  ENTITY_RANGE,
  entityNumber,
  generateFromScenarios,
  splitOf,
  type GeneratorSpec,
  type Scenario,
  type ScenarioContext,
  type TaskDraft,
} from './common/generator.js';
export { Prng } from './common/prng.js';
export { FIRST_NAMES, LAST_NAMES } from './common/names.js';
export {
  goldenArguments,
  goldenLookups,
  initRow,
  initRows,
  withArguments,
  withoutCall,
} from './common/golden-edits.js';
export { fromCents, percentOf, toCents } from './common/money.js';
export { addDays, addHours, daysBetween, hoursBetween, iso, isoDate } from './common/time.js';
export { selectJson, selectOne, writeRows, type JsonRow } from './common/sql.js';
export { auditGrading, auditTableSql, writeAudit, type AuditEntry } from './common/audit.js';
export {
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  ticketGrading,
  ticketTableSql,
  ticketTools,
  type TicketSystem,
} from './common/tickets.js';
export { contactUpdateTool, type ContactTable } from './common/contact.js';
export { beyondDays, call, introduce, sqlString, userBrief, withinDays, type Assertion } from './common/drafts.js';
export {
  escalationCalls,
  noTicketAssertion,
  requestDraft,
  ticketCalls,
  ticketStateAssertion,
  type Party,
  type RefRequest,
  type RequestVocabulary,
} from './common/requests.js';
