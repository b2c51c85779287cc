import type { z } from 'zod';
import { StackConfig } from './config.js';
import { TableGrading } from './domain.js';
import { GradeReport } from './grading.js';
import { Task, TaskSetManifest } from './task.js';

/** Schemas exported as JSON Schema to schemas/json/ (read by the Python worker and external tools). */
export const exportedSchemas: Record<string, z.ZodType> = {
  StackConfig,
  Task,
  TaskSetManifest,
  TableGrading,
  GradeReport,
};
