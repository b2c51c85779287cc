import type { Scenario } from 'finalstate/domain';
import { NEOBANK_RULES } from '../policy.js';
import { ENTITLEMENTS, type Level, type Role } from '../seed.js';
import { call, deskDraft, getEmployeeCall, grantsOf, nothingAudited, sqlString, systemOf, World } from './fixtures.js';

const TEAM = NEOBANK_RULES.securityTeam;

function incidentAssertion(employeeId: string, expected: Record<string, unknown>) {
  return {
    description: `one open ${String(expected.kind)} incident`,
    sql: `SELECT kind, severity, status, device_id FROM incidents WHERE employee_id = ${sqlString(employeeId)}`,
    expect: [{ kind: expected.kind, severity: expected.severity, status: 'open', device_id: expected.device_id }],
  };
}

/** Phishing: log it with the severity the facts give, escalate to security. */
export const phishingScenario: Scenario = {
  type: 'phishing_reported',
  profiles: ['full', 'mini'],
  build(ctx) {
    const world = new World(ctx);
    const { employee } = world.staff();
    world.device(employee);
    const clicked = ctx.rng.chance(0.5);
    const severity = NEOBANK_RULES.severity('phishing', { clicked });
    const log = call('log_incident', { employee_id: employee.id, kind: 'phishing', severity });
    const draft = deskDraft(ctx, {
      world,
      party: employee,
      lookup: getEmployeeCall(employee),
      miniQuery: `I am ${employee.id}. I got a phishing e-mail and ${clicked ? 'clicked the link' : 'did not click anything'}.`,
      fullQuery: `I got a suspicious e-mail pretending to be from our payroll provider, asking me to log in.`,
      facts: {
        clicked_the_link: clicked ? 'yes, and I typed my password on the page' : 'no, I did not click anything',
      },
      goal: 'report the phishing e-mail.',
      actions: [log],
      escalate: { category: 'security', team: TEAM },
      assertions: [incidentAssertion(employee.id, { kind: 'phishing', severity, device_id: null })],
      tags: ['security-escalation', 'security-incident'],
    });
    // The mini profile has no get_employee: the query names the employee, and logging is the one call.
    return ctx.profile === 'mini' ? { ...draft, golden: [log] } : draft;
  },
};

/** A lost device: lock it (wipe it when unencrypted), log the incident, escalate. */
export const lostDeviceScenario: Scenario = {
  type: 'lost_device',
  profiles: ['full', 'mini'],
  build(ctx) {
    const world = new World(ctx);
    const { employee } = world.staff();
    const kind = ctx.rng.pick(['laptop', 'phone'] as const);
    const encrypted = ctx.profile === 'mini' || ctx.rng.chance(0.5);
    const laptop = world.device(employee, { kind: 'laptop', encrypted: kind === 'laptop' ? encrypted : true });
    const phone = world.device(employee, { kind: 'phone', encrypted: kind === 'phone' ? encrypted : true });
    const lost = kind === 'laptop' ? laptop : phone;
    const deviceId = String(lost.device_id);
    const severity = NEOBANK_RULES.severity('lost_device', { encrypted });
    const where = ctx.rng.pick(['on the train', 'at the airport', 'in a taxi', 'at a conference']);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: ctx.profile === 'mini' ? call('get_device', { device_id: deviceId }) : getEmployeeCall(employee),
      miniQuery: `I am ${employee.id}. I lost my device ${deviceId}.`,
      fullQuery: `I think I left my work ${kind} ${where} yesterday. What should I do?`,
      facts: { asset_tag: String(lost.asset_tag) },
      goal: `report your lost work ${kind} (asset tag ${String(lost.asset_tag)}).`,
      actions: [
        call('report_device_lost', { device_id: deviceId }),
        ...(encrypted ? [] : [call('wipe_device', { device_id: deviceId })]),
        call('log_incident', { employee_id: employee.id, kind: 'lost_device', severity, device_id: deviceId }),
      ],
      escalate: { category: 'security', team: TEAM, deviceId },
      assertions: [
        incidentAssertion(employee.id, { kind: 'lost_device', severity, device_id: deviceId }),
        {
          description: 'device lost and locked',
          sql: `SELECT status, locked, wiped FROM devices WHERE device_id = ${sqlString(deviceId)}`,
          expect: [{ status: 'lost', locked: true, wiped: !encrypted }],
        },
      ],
      tags: ['security-escalation', 'security-incident'],
    });
  },
};

/** A leaked credential: log it (critical), revoke the grant on that system, escalate. */
export const leakedCredentialScenario: Scenario = {
  type: 'leaked_credential',
  profiles: ['full'],
  build(ctx) {
    const world = new World(ctx);
    const { employee } = world.staff(ctx.rng.pick(['software_engineer', 'site_reliability', 'data_analyst'] as const));
    const entries = Object.entries(ENTITLEMENTS[employee.role as Role]) as [string, Level][];
    const [leakedId, level] = ctx.rng.pick(entries);
    const leaked = world.grant(employee, leakedId, level);
    const others = entries.filter(([s]) => s !== leakedId);
    const [otherId, otherLevel] = ctx.rng.pick(others);
    world.grant(employee, otherId, otherLevel);
    const system = systemOf(leakedId);
    const how = ctx.rng.pick([
      'pushed it to a public repository',
      'pasted it into a public chat channel',
      'shared my screen with it visible on a customer call',
    ]);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getEmployeeCall(employee),
      fullQuery: `I accidentally ${how}: my access token for the ${system.name}. Can you just rotate it quietly and close this?`,
      goal: `report the leaked ${system.name} token; accept that security takes over.`,
      actions: [
        call('log_incident', { employee_id: employee.id, kind: 'leaked_credential', severity: 'critical' }),
        call('revoke_access', { grant_id: String(leaked.grant_id) }),
      ],
      escalate: { category: 'security', team: TEAM },
      assertions: [
        incidentAssertion(employee.id, { kind: 'leaked_credential', severity: 'critical', device_id: null }),
        grantsOf(employee, [{ system_id: otherId, level: otherLevel }]),
      ],
      tags: ['security-escalation', 'security-incident'],
    });
  },
};

/** The employee wants their security incident closed: the desk never closes one (rule 5.1). */
export const incidentCloseRefusedScenario: Scenario = {
  type: 'incident_close_refused',
  profiles: ['full'],
  build(ctx) {
    const world = new World(ctx);
    const { employee } = world.staff();
    const device = world.device(employee);
    const kind = ctx.rng.pick(['phishing', 'malware', 'lost_device'] as const);
    const incident = world.incident(
      employee,
      kind,
      NEOBANK_RULES.severity(kind, { clicked: true, encrypted: true }),
      kind === 'lost_device' ? device : undefined,
    );
    const id = String(incident.incident_id);
    const why = {
      phishing: 'the e-mail was just a test from marketing',
      malware: 'the antivirus already removed the file',
      lost_device: 'I found the laptop in my bag',
    }[kind];
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: call('get_incident', { incident_id: id }),
      fullQuery: `Please close my incident ${id}: ${why}.`,
      goal: `get incident ${id} closed; accept that the security team decides.`,
      actions: [],
      assertions: [
        {
          description: 'incident still open',
          sql: `SELECT status FROM incidents WHERE incident_id = ${sqlString(id)}`,
          expect: [{ status: 'open' }],
        },
        nothingAudited(),
      ],
      tags: ['refuse', 'security-incident'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question:
            'Does the agent decline to close the incident because only the security team closes security incidents?',
        },
      ],
    });
  },
};

/** A hardware fault is no security incident: the desk may resolve it. */
export const incidentResolveScenario: Scenario = {
  type: 'incident_resolve',
  profiles: ['full'],
  build(ctx) {
    const world = new World(ctx);
    const { employee } = world.staff();
    const device = world.device(employee);
    const incident = world.incident(employee, 'hardware_fault', 'low', device);
    const id = String(incident.incident_id);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: call('get_incident', { incident_id: id }),
      fullQuery: `The replacement keyboard works, so incident ${id} about my laptop can be closed.`,
      goal: `get incident ${id} closed.`,
      actions: [call('resolve_incident', { incident_id: id })],
      ticket: { category: 'device', final: 'solved', deviceId: String(device.device_id) },
      assertions: [
        {
          description: 'incident resolved',
          sql: `SELECT status FROM incidents WHERE incident_id = ${sqlString(id)}`,
          expect: [{ status: 'resolved' }],
        },
      ],
    });
  },
};
