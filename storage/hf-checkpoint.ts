import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Whether a Hugging Face model directory is complete enough to hand to a rollout server, read from its files alone:
 * vLLM's reload_weights releases the served weights before it reads the new files, so a directory it cannot load
 * leaves it with none (a completion then crashes it). Checked: config.json parses; the safetensors files are the
 * ones model.safetensors.index.json names (else every *.safetensors at the top level, which is what vLLM reads), at
 * least one; each has a whole header, exactly the bytes its tensors' offsets cover (a truncated or padded copy
 * fails), and the tensors the index assigns to it; and, given a reference (the checkpoint the server holds now),
 * the same tensor names and shapes, so a checkpoint of another model is refused before it replaces the weights. A model
 * that ties its LM head to the input embeddings may name `lm_head.weight` or not (transformers' save_pretrained leaves
 * it out; the gpu worker's export writes it, so that vLLM reloads the head: docs/publishing.md): one with and one
 * without are the same model.
 */

export class IncompleteCheckpointError extends Error {
  override name = 'IncompleteCheckpointError';
  constructor(
    message: string,
    readonly dir: string,
  ) {
    super(message);
  }
}

export interface CheckpointSummary {
  dir: string;
  files: string[];
  tensors: number;
  bytes: number;
}

type TensorShapes = Map<string, string>;

const INDEX = 'model.safetensors.index.json';
const TIED_HEAD = 'lm_head.weight';
const MAX_HEADER = 100 * 1024 * 1024;

export async function readJson(file: string, what: string, dir: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new IncompleteCheckpointError(
      `checkpoint ${dir}: cannot read ${what} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      dir,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new IncompleteCheckpointError(`checkpoint ${dir}: ${what} is not valid JSON (${text.length} bytes)`, dir);
  }
}

/**
 * The tensors of one safetensors file (name -> its shape as JSON, e.g. "[64,128]"), after checking its header against
 * its size; an IncompleteCheckpointError naming `dir` and the file otherwise.
 */
export async function readSafetensors(file: string, dir: string): Promise<{ tensors: TensorShapes; bytes: number }> {
  const name = path.basename(file);
  const fail = (what: string) => new IncompleteCheckpointError(`checkpoint ${dir}: ${name} ${what}`, dir);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    throw fail(`cannot be opened (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    const { size } = await handle.stat();
    if (size < 8) throw fail(`has ${size} bytes, less than a safetensors header`);
    const prefix = Buffer.alloc(8);
    await handle.read(prefix, 0, 8, 0);
    const headerLength = Number(prefix.readBigUInt64LE(0));
    if (headerLength > MAX_HEADER || 8 + headerLength > size)
      throw fail(`declares a ${headerLength}-byte header but the file has ${size} bytes (truncated?)`);
    const headerBytes = Buffer.alloc(headerLength);
    await handle.read(headerBytes, 0, headerLength, 8);
    let header: Record<string, { shape?: unknown; data_offsets?: unknown }>;
    try {
      header = JSON.parse(headerBytes.toString('utf8')) as typeof header;
    } catch {
      throw fail('has a header that is not valid JSON');
    }
    const tensors: TensorShapes = new Map();
    let end = 0;
    for (const [tensor, info] of Object.entries(header)) {
      if (tensor === '__metadata__') continue;
      const offsets = info.data_offsets;
      if (!Array.isArray(offsets) || offsets.length !== 2 || !Array.isArray(info.shape))
        throw fail(`describes tensor ${tensor} without shape and data_offsets`);
      end = Math.max(end, Number(offsets[1]));
      tensors.set(tensor, JSON.stringify(info.shape));
    }
    if (tensors.size === 0) throw fail('holds no tensor');
    const expected = 8 + headerLength + end;
    if (size !== expected)
      throw fail(
        `has ${size} bytes but its header covers ${expected} (${size < expected ? 'truncated' : 'trailing bytes'})`,
      );
    return { tensors, bytes: size };
  } finally {
    await handle.close();
  }
}

async function readCheckpoint(dir: string): Promise<CheckpointSummary & { shapes: TensorShapes; tied: boolean }> {
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) throw new IncompleteCheckpointError(`checkpoint ${dir}: no such directory`, dir);
  const config = await readJson(path.join(dir, 'config.json'), 'config.json', dir);
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new IncompleteCheckpointError(`checkpoint ${dir}: config.json is not an object`, dir);
  const entries = await fs.readdir(dir);
  let files: string[];
  let assigned: Map<string, string> | undefined;
  if (entries.includes(INDEX)) {
    const index = (await readJson(path.join(dir, INDEX), INDEX, dir)) as { weight_map?: Record<string, string> };
    if (!index.weight_map || typeof index.weight_map !== 'object' || Object.keys(index.weight_map).length === 0)
      throw new IncompleteCheckpointError(`checkpoint ${dir}: ${INDEX} has no weight_map`, dir);
    assigned = new Map(Object.entries(index.weight_map));
    files = [...new Set(assigned.values())].sort();
    const missing = files.filter((f) => !entries.includes(f));
    if (missing.length > 0)
      throw new IncompleteCheckpointError(
        `checkpoint ${dir}: ${INDEX} names ${missing.length} shard(s) that are not there: ${missing.join(', ')}`,
        dir,
      );
  } else {
    files = entries.filter((f) => f.endsWith('.safetensors')).sort();
    if (files.length === 0)
      throw new IncompleteCheckpointError(`checkpoint ${dir}: no *.safetensors file (the weights are missing)`, dir);
  }
  const shapes: TensorShapes = new Map();
  let bytes = 0;
  for (const file of files) {
    const read = await readSafetensors(path.join(dir, file), dir);
    bytes += read.bytes;
    for (const [tensor, shape] of read.tensors) shapes.set(tensor, shape);
    if (assigned) {
      const absent = [...assigned].filter(([t, f]) => f === file && !read.tensors.has(t)).map(([t]) => t);
      if (absent.length > 0)
        throw new IncompleteCheckpointError(
          `checkpoint ${dir}: ${file} lacks ${absent.length} tensor(s) the index assigns to it, e.g. ${absent[0]}`,
          dir,
        );
    }
  }
  const tied = (config as { tie_word_embeddings?: unknown }).tie_word_embeddings === true;
  return { dir, files, tensors: shapes.size, bytes, shapes, tied };
}

/**
 * How the tensors of checkpoint `dir` differ from those of checkpoint `like` (names and shapes; a tied LM head named
 * on one side only is no difference); undefined when either cannot be read.
 */
export async function tensorDifferences(dir: string, like: string): Promise<string[] | undefined> {
  const [checked, reference] = await Promise.all([dir, like].map((d) => readCheckpoint(d).catch(() => undefined)));
  if (!checked || !reference) return undefined;
  return differencesOf(checked, reference);
}

function differencesOf(
  checked: { shapes: TensorShapes; tied: boolean },
  reference: { shapes: TensorShapes; tied: boolean },
): string[] {
  const optional = (tensor: string) => tensor === TIED_HEAD && checked.tied && reference.tied;
  const differences: string[] = [];
  for (const [tensor, shape] of reference.shapes) {
    const mine = checked.shapes.get(tensor);
    if (mine === undefined) {
      if (!optional(tensor)) differences.push(`${tensor} missing`);
    } else if (mine !== shape) differences.push(`${tensor} has shape ${mine}, not ${shape}`);
  }
  for (const tensor of checked.shapes.keys())
    if (!reference.shapes.has(tensor) && !optional(tensor)) differences.push(`${tensor} extra`);
  return differences;
}

/** The tensors of the model checkpoint `dir` (name -> shape as JSON), once it is known to be complete. */
export async function checkpointTensors(dir: string): Promise<Map<string, string>> {
  return (await readCheckpoint(dir)).shapes;
}

/**
 * Check `dir` (see the module comment); with `like`, also that its tensors have the names and shapes of the checkpoint
 * in `like` (skipped when `like` cannot be read). Throws IncompleteCheckpointError naming the first problem.
 */
export async function checkHfCheckpoint(dir: string, like?: string): Promise<CheckpointSummary> {
  const checked = await readCheckpoint(dir);
  const reference = like === undefined ? undefined : await readCheckpoint(like).catch(() => undefined);
  if (reference) {
    const differences = differencesOf(checked, reference);
    if (differences.length > 0)
      throw new IncompleteCheckpointError(
        `checkpoint ${dir} does not have the tensors of ${like} (${differences.length} differences: ${differences.slice(0, 3).join('; ')})`,
        dir,
      );
  }
  const { shapes: _shapes, tied: _tied, ...summary } = checked;
  return summary;
}
