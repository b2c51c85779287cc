// The campaign workflow and what its callers read of it.
export { campaign } from './sequence.js';
export { initialState, type CampaignInput, type CampaignResult } from './run.js';
export { poolVersionOf, statusOf } from './status.js';
