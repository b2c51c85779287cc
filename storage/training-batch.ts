import fs from 'node:fs/promises';
import path from 'node:path';
import { TrainingBatch, type BatchEpisodeSlice, type TrainingEpisode } from '../schemas/training.js';
import { localPathOf } from './artifacts.js';
import { NpyWriter, readNpy, type NpyArray, type NpyDtype } from './npy.js';

const ARRAYS = {
  tokenIds: { dtype: 'int32', suffix: 'token-ids' },
  lossMask: { dtype: 'uint8', suffix: 'loss-mask' },
  rolloutLogprobs: { dtype: 'float32', suffix: 'rollout-logprobs' },
  rolloutVersions: { dtype: 'int32', suffix: 'rollout-versions' },
} as const satisfies Record<string, { dtype: NpyDtype; suffix: string }>;
type Column = keyof typeof ARRAYS;
const COLUMNS = Object.keys(ARRAYS) as Column[];
type Columns = { [C in Column]: NpyArray<(typeof ARRAYS)[C]['dtype']> };

/** An episode as a batch file holds it: its slice of the arrays (no rolloutVersions in a batch written before them). */
export type BatchFileEpisode = BatchEpisodeSlice &
  Omit<Columns, 'rolloutVersions'> &
  Partial<Pick<Columns, 'rolloutVersions'>>;

/**
 * Writes a TrainingBatch episode by episode: each episode's columns are appended to the arrays as it comes, so
 * memory holds one episode, never the batch. `finish` writes the manifest last (the arrays are complete by then);
 * `abort` leaves nothing behind.
 */
export class TrainingBatchWriter {
  private readonly episodes: BatchEpisodeSlice[] = [];
  private tokens = 0;

  private constructor(
    private readonly manifestFile: string,
    private readonly writers: { [C in Column]: NpyWriter<(typeof ARRAYS)[C]['dtype']> },
  ) {}

  /** A writer of `<dir>/<name>.json` and its arrays `<dir>/<name>.<column>.npy`. */
  static async create(dir: string, name: string): Promise<TrainingBatchWriter> {
    await fs.mkdir(dir, { recursive: true });
    const file = (column: Column) => path.join(dir, `${name}.${ARRAYS[column].suffix}.npy`);
    return new TrainingBatchWriter(path.join(dir, `${name}.json`), {
      tokenIds: await NpyWriter.create(file('tokenIds'), 'int32'),
      lossMask: await NpyWriter.create(file('lossMask'), 'uint8'),
      rolloutLogprobs: await NpyWriter.create(file('rolloutLogprobs'), 'float32'),
      rolloutVersions: await NpyWriter.create(file('rolloutVersions'), 'int32'),
    });
  }

  async add(episode: TrainingEpisode): Promise<void> {
    const { tokenIds, lossMask, rolloutLogprobs, rolloutVersions, ...meta } = episode;
    const length = tokenIds.length;
    if (lossMask.length !== length || rolloutLogprobs.length !== length || rolloutVersions.length !== length)
      throw new Error(
        `episode ${meta.episodeId}: lossMask, rolloutLogprobs and rolloutVersions must have one entry per token id`,
      );
    await this.writers.tokenIds.append(Int32Array.from(tokenIds));
    await this.writers.lossMask.append(Uint8Array.from(lossMask));
    await this.writers.rolloutLogprobs.append(Float32Array.from(rolloutLogprobs));
    await this.writers.rolloutVersions.append(Int32Array.from(rolloutVersions));
    this.episodes.push({ ...meta, offset: this.tokens, length });
    this.tokens += length;
  }

  get size(): number {
    return this.episodes.length;
  }

  /** Completes the arrays, then the manifest; returns the manifest's path. */
  async finish(): Promise<string> {
    const arrays = {} as Record<Column, { file: string; dtype: NpyDtype; length: number }>;
    for (const column of COLUMNS) {
      const writer = this.writers[column];
      arrays[column] = { file: path.basename(writer.file), dtype: writer.dtype, length: await writer.finish() };
    }
    const manifest = TrainingBatch.parse({
      format: 'finalstate-batch/1',
      tokens: this.tokens,
      episodes: this.episodes,
      arrays,
    });
    const tmp = `${this.manifestFile}.${process.pid}.tmp`;
    await fs.writeFile(tmp, JSON.stringify(manifest));
    await fs.rename(tmp, this.manifestFile);
    return this.manifestFile;
  }

  async abort(): Promise<void> {
    await Promise.all(COLUMNS.map((c) => this.writers[c].abort()));
  }
}

/** A TrainingBatch and its episodes' columns, read whole (for tests and the stand-in trainer; the trainer maps them). */
export async function readTrainingBatch(
  uri: string,
): Promise<{ manifest: TrainingBatch; episodes: BatchFileEpisode[] }> {
  const file = localPathOf(uri);
  const manifest = TrainingBatch.parse(JSON.parse(await fs.readFile(file, 'utf8')));
  const dir = path.dirname(file);
  const columns = {} as Partial<Columns>;
  for (const column of COLUMNS) {
    const spec = manifest.arrays[column];
    if (spec === undefined) continue;
    const array = await readNpy(path.join(dir, spec.file), ARRAYS[column].dtype);
    if (array.length !== manifest.tokens)
      throw new Error(`${file}: ${spec.file} holds ${array.length} elements, not ${manifest.tokens}`);
    (columns as Record<Column, unknown>)[column] = array;
  }
  const { tokenIds, lossMask, rolloutLogprobs, rolloutVersions } = columns as Columns;
  const episodes = manifest.episodes.map((e) => {
    const end = e.offset + e.length;
    return {
      ...e,
      tokenIds: tokenIds.subarray(e.offset, end),
      lossMask: lossMask.subarray(e.offset, end),
      rolloutLogprobs: rolloutLogprobs.subarray(e.offset, end),
      ...(rolloutVersions ? { rolloutVersions: rolloutVersions.subarray(e.offset, end) } : {}),
    };
  });
  return { manifest, episodes };
}

/** A whole batch at once: `<dir>/<name>.json` and its arrays; returns the manifest's path. */
export async function writeTrainingBatch(dir: string, name: string, episodes: TrainingEpisode[]): Promise<string> {
  const writer = await TrainingBatchWriter.create(dir, name);
  try {
    for (const episode of episodes) await writer.add(episode);
  } catch (err) {
    await writer.abort();
    throw err;
  }
  return writer.finish();
}
