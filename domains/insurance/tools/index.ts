import { ticketTools, type ToolDefinition } from 'finalstate/domain';
import { insuranceTickets } from '../schema.js';
import {
  addClaimNote,
  approveClaim,
  assignRepairShop,
  denyClaim,
  fileClaim,
  getClaim,
  issueClaimPayment,
  listRepairShops,
} from './claims.js';
import { addDriver, cancelPolicy, getPolicy, updateVehicleUsage } from './policies.js';
import { findPolicyholderByEmail, updatePolicyholderContact, verifyPolicyholderIdentity } from './policyholders.js';

export const insuranceTools: ToolDefinition[] = [
  findPolicyholderByEmail,
  verifyPolicyholderIdentity,
  updatePolicyholderContact,
  getPolicy,
  addDriver,
  updateVehicleUsage,
  cancelPolicy,
  getClaim,
  listRepairShops,
  fileClaim,
  assignRepairShop,
  approveClaim,
  denyClaim,
  issueClaimPayment,
  addClaimNote,
  ...ticketTools(insuranceTickets),
];

/** The tiny model's tool set: look the policy or claim up, then write or refuse. */
export const insuranceMiniTools = [
  'get_policy',
  'get_claim',
  'file_claim',
  'approve_claim',
  'deny_claim',
  'cancel_policy',
];
