import type { z } from 'zod';
import { BearerToken } from './bearer-token.js';
import { GradeResponse, HydratedThinkingBoxTask, SidecarRequest } from './thinkingbox.js';
import { CampaignConfig, CampaignStatus, EvaluationConfig } from './campaign.js';
import { DemoPreset } from './demo.js';
import { ClusterPreset } from './deploy.js';
import { StackConfig } from './config.js';
import { TableGrading } from './domain.js';
import { EpisodeOutcome, EpisodeRecord, EpisodeRequest } from './episode.js';
import { FailureTypeName } from './failures.js';
import { EvalPoint, FrozenPool, PoolSwap, PriceTable, ResultRow, StepSummary } from './results.js';
import { GradeReport } from './grading.js';
import { ModelCheckRequest } from './model-check.js';
import { Task, TaskSetManifest } from './task.js';
import { TokenScoreRequest } from './token-scores.js';
import { LogMetricsInput, LogMetricsResult } from './tracking.js';
import {
  OpenEnvAction,
  OpenEnvObservation,
  OpenEnvResetParams,
  OpenEnvStepResult,
  OpenEnvTaskSets,
  OpenEnvTaskSummary,
} from './openenv.js';
import { Trajectory } from './trajectory.js';
import {
  DescribeUpdateInput,
  PolicyUpdateInput,
  PolicyUpdateResult,
  SftDemonstration,
  TrainingBatch,
  TrainingEpisode,
  UpdateDescription,
  UpdateMemoryModel,
} from './training.js';

/** Schemas exported as JSON Schema to schemas/json/ (read by the Python worker and external tools). */
export const exportedSchemas: Record<string, z.ZodType> = {
  StackConfig,
  Task,
  TaskSetManifest,
  TableGrading,
  Trajectory,
  EpisodeRequest,
  EpisodeOutcome,
  EpisodeRecord,
  ResultRow,
  PriceTable,
  FrozenPool,
  PoolSwap,
  StepSummary,
  EvalPoint,
  TrainingBatch,
  TrainingEpisode,
  PolicyUpdateInput,
  PolicyUpdateResult,
  DescribeUpdateInput,
  UpdateDescription,
  UpdateMemoryModel,
  SftDemonstration,
  GradeReport,
  CampaignConfig,
  EvaluationConfig,
  CampaignStatus,
  DemoPreset,
  ModelCheckRequest,
  TokenScoreRequest,
  LogMetricsInput,
  LogMetricsResult,
  FailureType: FailureTypeName,
  ClusterPreset,
  BearerToken,
  ThinkingBoxSidecarRequest: SidecarRequest,
  ThinkingBoxGradeResponse: GradeResponse,
  ThinkingBoxHydratedTask: HydratedThinkingBoxTask,
  OpenEnvResetParams,
  OpenEnvAction,
  OpenEnvObservation,
  OpenEnvStepResult,
  OpenEnvTaskSets,
  OpenEnvTaskSummary,
};
