import type { Scenario } from 'finalstate/domain';
import { approvalRequiredScenario, cancellationNeedsApprovalScenario } from './approval-required.js';
import { contactUpdateScenario } from './contact-update.js';
import { dutyOfCareScenario } from './duty-of-care.js';
import {
  flightCancelCreditScenario,
  flightCancelRefundableScenario,
  flightCancelRefusedScenario,
} from './flight-cancel.js';
import { flightDisruptionScenario } from './flight-disruption.js';
import { hotelCancelFreeScenario, hotelCancelLateScenario } from './hotel-cancel.js';
import { bookingInquiryScenario, passportRequestScenario } from './information.js';
import { largeRefundScenario } from './large-refund.js';
import { multiRequestScenario } from './multi-request.js';
import { roomDowngradeScenario } from './room-downgrade.js';
import { seatChangeRefusedScenario, seatChangeScenario } from './seat-change.js';

/** Every travel task type with the profiles it serves. */
export const travelScenarios: Scenario[] = [
  roomDowngradeScenario,
  approvalRequiredScenario,
  cancellationNeedsApprovalScenario,
  hotelCancelFreeScenario,
  hotelCancelLateScenario,
  flightCancelRefundableScenario,
  flightCancelCreditScenario,
  flightCancelRefusedScenario,
  flightDisruptionScenario,
  seatChangeScenario,
  seatChangeRefusedScenario,
  largeRefundScenario,
  bookingInquiryScenario,
  passportRequestScenario,
  contactUpdateScenario,
  multiRequestScenario,
  dutyOfCareScenario,
];
