import type { z } from 'zod';
import { CampaignConfig, CampaignStatus, EvaluationConfig } from './campaign.js';
import { StackConfig } from './config.js';
import { TableGrading } from './domain.js';
import { EpisodeOutcome, EpisodeRequest } from './episode.js';
import { EvalPoint, FrozenPool, PriceTable, ResultRow, StepSummary } from './results.js';
import { Task, TaskSetManifest } from './task.js';
import { Trajectory } from './trajectory.js';

/** Schemas exported as JSON Schema to schemas/json/ (read by the Python worker and external tools). */
export const exportedSchemas: Record<string, z.ZodType> = {
  StackConfig,
  Task,
  TaskSetManifest,
  TableGrading,
  Trajectory,
  EpisodeRequest,
  EpisodeOutcome,
  ResultRow,
  PriceTable,
  FrozenPool,
  StepSummary,
  EvalPoint,
  CampaignConfig,
  EvaluationConfig,
  CampaignStatus,
};
