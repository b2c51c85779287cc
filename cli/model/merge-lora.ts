import path from 'node:path';
import type { LoadedConfig } from '../../schemas/config.js';
import { MergeLoraResult } from '../../schemas/model-import.js';
import { runPythonModule } from '../../infra/python-module.js';

/**
 * A LoRA checkpoint (a LoRA campaign's step directory) merged into its base model, as a plain Hugging Face checkpoint
 * a server without LoRA loads (python -m finalstate.merge_lora): merged in fp32, written atomically.
 */
export function mergeLora(
  config: LoadedConfig,
  checkpoint: string,
  out: string,
  options: { baseModel?: string; dtype?: 'float32' | 'bfloat16' } = {},
): Promise<MergeLoraResult> {
  return runPythonModule(config, {
    module: 'finalstate.merge_lora',
    args: [
      path.resolve(checkpoint),
      '--out',
      path.resolve(out),
      ...(options.baseModel ? ['--base', path.resolve(options.baseModel)] : []),
      ...(options.dtype ? ['--dtype', options.dtype] : []),
    ],
    result: MergeLoraResult,
    what: 'model merge-lora',
    userErrorCodes: [2],
  });
}
