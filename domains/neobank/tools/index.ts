import { ticketTools, type ToolDefinition } from 'finalstate/domain';
import { neobankTickets } from '../schema.js';
import {
  getAccessRequest,
  grantAccess,
  listSystems,
  requestApproval,
  revokeAccess,
  submitAccessRequest,
} from './access.js';
import { getDevice, reportDeviceLost, retireDevice, wipeDevice } from './devices.js';
import { findEmployeeByEmail, getEmployee, resetMfa, verifyEmployeeIdentity } from './employees.js';
import { getIncident, logIncident, resolveIncident } from './incidents.js';
import { assignLicence, listSoftware, revokeLicence } from './software.js';

export const neobankTools: ToolDefinition[] = [
  findEmployeeByEmail,
  verifyEmployeeIdentity,
  getEmployee,
  resetMfa,
  getAccessRequest,
  listSystems,
  submitAccessRequest,
  requestApproval,
  grantAccess,
  revokeAccess,
  getDevice,
  reportDeviceLost,
  wipeDevice,
  retireDevice,
  logIncident,
  getIncident,
  resolveIncident,
  listSoftware,
  assignLicence,
  revokeLicence,
  ...ticketTools(neobankTickets),
];

/** The tiny model's tool set: look the request or device up, then write or refuse. */
export const neobankMiniTools = [
  'get_access_request',
  'grant_access',
  'request_approval',
  'get_device',
  'report_device_lost',
  'log_incident',
];
