import type { Scenario } from 'finalstate/domain';
import {
  expenseAboveLimitApprovedScenario,
  expenseAboveLimitRoutedScenario,
  expenseMissingReceiptRejectedScenario,
  expenseNoReceiptRefusedScenario,
  expenseWithinLimitScenario,
} from './expenses.js';
import { addressUpdateScenario, privacyRefusedScenario } from './hr.js';
import {
  accessEscalatedScenario,
  accessGrantScenario,
  equipmentReplacementScenario,
  timesheetDecisionScenario,
} from './it.js';
import {
  approveLeaveNotReportRefusedScenario,
  approveReportLeaveScenario,
  bookLeaveScenario,
  leaveAccrualBookingScenario,
  leaveBalanceInfoScenario,
  leaveOverBalanceRefusedScenario,
  leaveWithExceptionScenario,
} from './leave.js';

/** Every consulting task type: seventeen serve the full profile, six the mini one. */
export const consultingScenarios: Scenario[] = [
  bookLeaveScenario,
  leaveOverBalanceRefusedScenario,
  expenseWithinLimitScenario,
  expenseAboveLimitRoutedScenario,
  expenseMissingReceiptRejectedScenario,
  leaveBalanceInfoScenario,
  leaveWithExceptionScenario,
  leaveAccrualBookingScenario,
  approveReportLeaveScenario,
  approveLeaveNotReportRefusedScenario,
  expenseAboveLimitApprovedScenario,
  expenseNoReceiptRefusedScenario,
  accessGrantScenario,
  accessEscalatedScenario,
  equipmentReplacementScenario,
  timesheetDecisionScenario,
  privacyRefusedScenario,
  addressUpdateScenario,
];
