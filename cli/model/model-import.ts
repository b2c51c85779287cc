import path from 'node:path';
import type { LoadedConfig } from '../../schemas/config.js';
import { type ModelAsset, ModelImportResult } from '../../schemas/model-import.js';
import { runPythonModule } from '../../infra/python-module.js';

export type ModelImportSource = { gguf: string } | { asset: ModelAsset };

/** Where imported checkpoints live: <dataDir>/models (beside the built base models). */
export const importedModelsDir = (config: LoadedConfig): string => path.join(config.dataPath, 'models');

/**
 * A GGUF checkpoint as a plain Hugging Face directory (python -m finalstate.model_import): written once, cached by the
 * GGUF's content hash under `<dataDir>/models`, atomic. What `finalstate model import` runs, and what a preset or
 * fleet calls to get the directory it serves and trains.
 */
export function importModel(
  config: LoadedConfig,
  source: ModelImportSource,
  options: { modelsDir?: string; log?: (line: string) => void } = {},
): Promise<ModelImportResult> {
  const from = 'gguf' in source ? ['--gguf', path.resolve(source.gguf)] : ['--asset', source.asset];
  return runPythonModule(config, {
    module: 'finalstate.model_import',
    args: [...from, '--models-dir', options.modelsDir ?? importedModelsDir(config)],
    result: ModelImportResult,
    what: 'model import',
    userErrorCodes: [2],
    ...(options.log ? { log: options.log } : {}),
  });
}
