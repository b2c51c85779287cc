import type { Scenario } from 'finalstate/domain';
import { addressChangeRefusedScenario } from './address-change-refused.js';
import { addressChangeScenario } from './address-change.js';
import { cancelOrderScenario } from './cancel-order.js';
import { cancelRefusedScenario } from './cancel-refused.js';
import { compensationRefusedScenario } from './compensation-refused.js';
import { contactUpdateScenario } from './contact-update.js';
import { damagedOnArrivalScenario } from './damaged-on-arrival.js';
import { fraudHoldScenario } from './fraud-hold.js';
import { lateDeliveryScenario } from './late-delivery.js';
import { missingPackageScenario } from './missing-package.js';
import { multiRequestScenario } from './multi-request.js';
import { orderStatusScenario } from './order-status.js';
import { priceAdjustmentScenario } from './price-adjustment.js';
import { returnItemScenario } from './return-item.js';
import { returnRefusedScenario } from './return-refused.js';
import { ticketFollowupScenario } from './ticket-followup.js';

/** Every retail task type; the first eight also serve the mini profile. */
export const retailScenarios: Scenario[] = [
  cancelOrderScenario,
  cancelRefusedScenario,
  addressChangeScenario,
  addressChangeRefusedScenario,
  lateDeliveryScenario,
  compensationRefusedScenario,
  returnItemScenario,
  returnRefusedScenario,
  orderStatusScenario,
  fraudHoldScenario,
  priceAdjustmentScenario,
  damagedOnArrivalScenario,
  missingPackageScenario,
  contactUpdateScenario,
  multiRequestScenario,
  ticketFollowupScenario,
];
