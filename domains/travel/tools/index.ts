import { ticketTools, type ToolDefinition } from 'finalstate/domain';
import { travelTickets } from '../schema.js';
import { getBooking, listApprovals, listTravelerBookings } from './bookings.js';
import { cancelFlightSegment, changeSeat, getFlight } from './flights.js';
import { cancelHotelStay, changeRoomType, getHotel } from './hotels.js';
import { issueRefund, issueTravelCredit } from './money.js';
import {
  findTravelerByEmail,
  getCompanyPolicy,
  getTraveler,
  updateTravelerContact,
  verifyTravelerIdentity,
} from './travelers.js';

export const travelTools: ToolDefinition[] = [
  findTravelerByEmail,
  getTraveler,
  verifyTravelerIdentity,
  updateTravelerContact,
  getCompanyPolicy,
  listTravelerBookings,
  getBooking,
  listApprovals,
  getHotel,
  getFlight,
  changeRoomType,
  cancelHotelStay,
  cancelFlightSegment,
  changeSeat,
  issueRefund,
  issueTravelCredit,
  ...ticketTools(travelTickets),
];

/** The tiny model's tool set: look the booking up, then change, cancel and refund, or refuse. */
export const travelMiniTools = [
  'get_booking',
  'change_room_type',
  'cancel_hotel_stay',
  'cancel_flight_segment',
  'change_seat',
  'issue_refund',
];
