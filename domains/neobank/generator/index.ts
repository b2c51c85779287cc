import type { Scenario } from 'finalstate/domain';
import {
  accessAboveRoleScenario,
  accessClaimedApprovalScenario,
  accessFulfilScenario,
  accessInfoScenario,
  accessMissingApprovalScenario,
  accessNewRequestScenario,
  accessRejectedScenario,
} from './access.js';
import {
  incidentCloseRefusedScenario,
  incidentResolveScenario,
  leakedCredentialScenario,
  lostDeviceScenario,
  phishingScenario,
} from './security.js';
import {
  deviceRetireScenario,
  licenceAssignScenario,
  licenceRefusedScenario,
  mfaResetScenario,
  offboardingRefusedScenario,
  offboardingScenario,
  roleChangeEscalatedScenario,
} from './workplace.js';

/** Every neobank task type; six also serve the mini profile. */
export const neobankScenarios: Scenario[] = [
  accessFulfilScenario,
  accessMissingApprovalScenario,
  accessAboveRoleScenario,
  accessInfoScenario,
  phishingScenario,
  lostDeviceScenario,
  accessClaimedApprovalScenario,
  accessRejectedScenario,
  accessNewRequestScenario,
  leakedCredentialScenario,
  incidentCloseRefusedScenario,
  incidentResolveScenario,
  offboardingScenario,
  offboardingRefusedScenario,
  licenceAssignScenario,
  licenceRefusedScenario,
  mfaResetScenario,
  deviceRetireScenario,
  roleChangeEscalatedScenario,
];
