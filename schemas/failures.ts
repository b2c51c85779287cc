import { z } from 'zod';
import { FailureType } from '../core/failure-types.js';

/** Every ApplicationFailure type an activity raises, exported so that the Python workers use the same strings. */
export const FailureTypeName = z.enum(FailureType).describe('An ApplicationFailure type (core/failure-types.ts).');
export type FailureTypeName = z.infer<typeof FailureTypeName>;
