import { ticketTools, type ToolDefinition } from 'finalstate/domain';
import { consultingTickets } from '../schema.js';
import {
  findEmployeeByEmail,
  getEmployee,
  listManagerApprovals,
  updateHomeAddress,
  verifyEmployeeIdentity,
} from './employees.js';
import {
  approveExpenseClaim,
  fileExpenseClaim,
  getExpenseClaim,
  rejectExpenseClaim,
  routeExpenseToManager,
} from './expenses.js';
import {
  accrueLeave,
  approveLeaveRequest,
  getLeaveBalance,
  getLeaveRequest,
  postLeaveDeduction,
  submitLeaveRequest,
} from './leave.js';
import {
  approveTimesheet,
  assignEquipment,
  getTimesheet,
  grantAccess,
  listEquipmentStock,
  rejectTimesheet,
  reportEquipmentFault,
} from './operations.js';

export const consultingTools: ToolDefinition[] = [
  findEmployeeByEmail,
  getEmployee,
  verifyEmployeeIdentity,
  updateHomeAddress,
  listManagerApprovals,
  getLeaveBalance,
  accrueLeave,
  submitLeaveRequest,
  getLeaveRequest,
  approveLeaveRequest,
  postLeaveDeduction,
  getExpenseClaim,
  fileExpenseClaim,
  approveExpenseClaim,
  rejectExpenseClaim,
  routeExpenseToManager,
  grantAccess,
  listEquipmentStock,
  reportEquipmentFault,
  assignEquipment,
  getTimesheet,
  approveTimesheet,
  rejectTimesheet,
  ...ticketTools(consultingTickets),
];

/** The tiny model's tool set: look the balance or the claim up, then write or refuse. */
export const consultingMiniTools = [
  'get_leave_balance',
  'submit_leave_request',
  'get_expense_claim',
  'approve_expense_claim',
  'reject_expense_claim',
  'route_expense_to_manager',
];
