import type { z } from 'zod';
import { StackConfig } from './config.js';

/** Schemas exported as JSON Schema to schemas/json/ (read by the Python worker and external tools). */
export const exportedSchemas: Record<string, z.ZodType> = {
  StackConfig,
};
