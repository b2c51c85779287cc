import path from 'node:path';
import type { TrackingConfig } from '../schemas/tracking.js';

/** The tracking config with its directories absolute: defaults under the data dir, relative ones against it. */
export function resolveTrackingDirs(tracking: TrackingConfig, dataPath: string): TrackingConfig {
  const resolve = (dir: string | undefined, fallback: string) => path.resolve(dataPath, dir ?? fallback);
  return {
    tensorboard: tracking.tensorboard === false ? false : { dir: resolve(tracking.tensorboard.dir, 'tensorboard') },
    ...(tracking.wandb ? { wandb: { ...tracking.wandb, dir: resolve(tracking.wandb.dir, 'wandb') } } : {}),
  };
}
