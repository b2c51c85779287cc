import { z } from 'zod';

/**
 * Where a campaign's step and evaluation metrics go: TensorBoard event files (on by default; `tensorboard --logdir
 * DIR`) and, when configured, Weights & Biases (offline mode writes a run directory that `wandb sync` uploads later).
 * Relative directories are resolved against the stack's data dir when the campaign starts.
 */
export const TrackingConfig = z
  .object({
    tensorboard: z
      .union([
        z.literal(false),
        z
          .object({
            dir: z
              .string()
              .min(1)
              .optional()
              .describe('Log dir; each campaign writes the run <dir>/<campaignId>. Default <dataDir>/tensorboard.'),
          })
          .strict(),
      ])
      .default({})
      .describe('false turns TensorBoard logging off.'),
    wandb: z
      .object({
        project: z.string().min(1),
        entity: z.string().min(1).optional(),
        mode: z
          .enum(['offline', 'online'])
          .default('offline')
          .describe('offline: no network; sync later with `wandb sync DIR/wandb/offline-run-*`.'),
        dir: z.string().min(1).optional().describe('Where wandb writes its run files. Default <dataDir>/wandb.'),
        tags: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .optional()
      .describe(
        'Absent: no Weights & Biases run. The run id is derived from the campaign id, so a resumed campaign continues the same run.',
      ),
  })
  .strict();
export type TrackingConfig = z.infer<typeof TrackingConfig>;

/** The payload of the `logMetrics` activity (Python, gpu worker queue): scalars of one step, named `group/metric`. */
export const LogMetricsInput = z
  .object({
    campaignId: z.string().min(1),
    step: z.number().int().nonnegative().describe('Training step: 0 = the base policy.'),
    scalars: z
      .record(z.string().regex(/^[A-Za-z0-9_.@/-]+$/), z.number())
      .describe('e.g. "train/mean_reward", "eval/pass@1", "eval/retail/pass@1".'),
    tracking: TrackingConfig,
  })
  .strict();
export type LogMetricsInput = z.infer<typeof LogMetricsInput>;

export const LogMetricsResult = z
  .object({
    scalars: z.number().int().nonnegative(),
    tensorboardDir: z.string().nullable(),
    wandbRunDir: z.string().nullable(),
  })
  .strict();
export type LogMetricsResult = z.infer<typeof LogMetricsResult>;
