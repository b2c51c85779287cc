import type { Scenario } from 'finalstate/domain';
import {
  approvalAboveLimitScenario,
  approveClaimScenario,
  denyExcludedDriverScenario,
  theftEscalatedScenario,
} from './claim-decisions.js';
import {
  fileClaimScenario,
  fileClaimWithShopScenario,
  lateClaimRefusedScenario,
  noCoverageRefusedScenario,
} from './claim-filing.js';
import {
  addDriverRefusedScenario,
  addDriverScenario,
  cancelPolicyScenario,
  cancelRefusedOpenClaimScenario,
  contactUpdateScenario,
  policyInfoScenario,
  usageChangeScenario,
} from './policy-requests.js';

/** Every insurance task type; eight also serve the mini profile. */
export const insuranceScenarios: Scenario[] = [
  fileClaimScenario,
  lateClaimRefusedScenario,
  noCoverageRefusedScenario,
  approveClaimScenario,
  denyExcludedDriverScenario,
  cancelPolicyScenario,
  cancelRefusedOpenClaimScenario,
  policyInfoScenario,
  fileClaimWithShopScenario,
  approvalAboveLimitScenario,
  theftEscalatedScenario,
  addDriverScenario,
  addDriverRefusedScenario,
  usageChangeScenario,
  contactUpdateScenario,
];
