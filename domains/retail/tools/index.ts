import { ticketTools, type ToolDefinition } from 'finalstate/domain';
import { retailTickets } from '../schema.js';
import { getProduct } from './catalog.js';
import { findCustomerByEmail, getCustomer, updateCustomerContact, verifyCustomerIdentity } from './customers.js';
import {
  cancelOrder,
  createReplacementOrder,
  getOrder,
  getTracking,
  listCustomerOrders,
  updateShippingAddress,
} from './orders.js';
import { createRefund, issueStoreCredit } from './refunds.js';
import { createReturn } from './returns.js';

export const retailTools: ToolDefinition[] = [
  findCustomerByEmail,
  getCustomer,
  verifyCustomerIdentity,
  updateCustomerContact,
  listCustomerOrders,
  getOrder,
  getTracking,
  getProduct,
  cancelOrder,
  updateShippingAddress,
  createReplacementOrder,
  createReturn,
  createRefund,
  issueStoreCredit,
  ...ticketTools(retailTickets),
];

/** The tiny model's tool set: look the order up, then write or refuse. */
export const retailMiniTools = [
  'get_order',
  'cancel_order',
  'update_shipping_address',
  'create_refund',
  'create_return',
];
