import { auditGrading, ticketGrading, type TableGrading } from 'finalstate/domain';

const keyed = (...primaryKey: string[]): TableGrading => ({ primaryKey, ignoreColumns: [], canonicalize: {} });

export const neobankGrading: Record<string, TableGrading> = {
  departments: keyed('department_id'),
  employees: keyed('employee_id'),
  systems: keyed('system_id'),
  role_entitlements: keyed('role', 'system_id'),
  devices: keyed('device_id'),
  software_products: keyed('product_id'),
  software_entitlements: keyed('product_id', 'department_id'),
  software_licences: keyed('licence_id'),
  access_requests: keyed('request_id'),
  change_approvals: keyed('approval_id'),
  access_grants: keyed('grant_id'),
  incidents: { primaryKey: ['incident_id'], ignoreColumns: ['summary'], canonicalize: {} },
  tickets: ticketGrading,
  audit_log: auditGrading,
};
