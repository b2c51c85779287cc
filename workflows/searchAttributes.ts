import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Typed keys of the search attributes `finalstate dev up` registers (infra/stack/temporal.ts SEARCH_ATTRIBUTES). */
export const CampaignIdKey = defineSearchAttributeKey('CampaignId', SearchAttributeType.KEYWORD);
export const StepKey = defineSearchAttributeKey('Step', SearchAttributeType.INT);
