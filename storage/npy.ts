import fs from 'node:fs/promises';
import os from 'node:os';

/** The dtypes a batch array may have, with numpy's name for each and its element type here. */
export const NPY_DTYPES = {
  int32: { descr: '<i4', array: Int32Array },
  uint8: { descr: '|u1', array: Uint8Array },
  float32: { descr: '<f4', array: Float32Array },
} as const;
export type NpyDtype = keyof typeof NPY_DTYPES;
export type NpyArray<D extends NpyDtype> = InstanceType<(typeof NPY_DTYPES)[D]['array']>;

const MAGIC = Buffer.from([0x93, ...Buffer.from('NUMPY')]);
/** Header of a fixed size (a multiple of 64, as numpy aligns it), so it is written last, once the length is known. */
const HEADER_BYTES = 128;

function header(dtype: NpyDtype, length: number): Buffer {
  const dict = `{'descr': '${NPY_DTYPES[dtype].descr}', 'fortran_order': False, 'shape': (${length},), }`;
  const text = dict.padEnd(HEADER_BYTES - 10 - 1, ' ') + '\n';
  const head = Buffer.alloc(10);
  MAGIC.copy(head);
  head.writeUInt8(1, 6); // format version 1.0
  head.writeUInt8(0, 7);
  head.writeUInt16LE(text.length, 8);
  return Buffer.concat([head, Buffer.from(text, 'latin1')]);
}

/**
 * A 1-D `.npy` file written in pieces, so a large array never has to be in memory at once: appended to a temporary
 * file, which `finish` completes with its header and renames into place.
 */
export class NpyWriter<D extends NpyDtype> {
  private length = 0;
  private constructor(
    readonly file: string,
    readonly dtype: D,
    private readonly handle: fs.FileHandle,
    private readonly tmp: string,
  ) {}

  static async create<D extends NpyDtype>(file: string, dtype: D): Promise<NpyWriter<D>> {
    if (os.endianness() !== 'LE') throw new Error(`${file}: .npy arrays are written little-endian only`);
    const tmp = `${file}.${process.pid}.tmp`;
    const handle = await fs.open(tmp, 'w');
    await handle.write(Buffer.alloc(HEADER_BYTES), 0, HEADER_BYTES, 0);
    return new NpyWriter(file, dtype, handle, tmp);
  }

  async append(values: NpyArray<D>): Promise<void> {
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    // Positioned writes throughout: a positioned write does not move the file's own offset.
    await this.handle.write(bytes, 0, bytes.byteLength, HEADER_BYTES + this.length * values.BYTES_PER_ELEMENT);
    this.length += values.length;
  }

  /** Writes the header, closes and renames the file; returns the number of elements. */
  async finish(): Promise<number> {
    await this.handle.write(header(this.dtype, this.length), 0, HEADER_BYTES, 0);
    await this.handle.close();
    await fs.rename(this.tmp, this.file);
    return this.length;
  }

  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await fs.rm(this.tmp, { force: true });
  }
}

/** A whole 1-D `.npy` file of one of NPY_DTYPES, checked against the dtype it must have. */
export async function readNpy<D extends NpyDtype>(file: string, dtype: D): Promise<NpyArray<D>> {
  const data = await fs.readFile(file);
  if (!data.subarray(0, 6).equals(MAGIC)) throw new Error(`${file} is not a .npy file`);
  const headerEnd = data.readUInt8(6) === 1 ? 10 + data.readUInt16LE(8) : 12 + data.readUInt32LE(8);
  const text = data.subarray(0, headerEnd).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(text)?.[1];
  const length = /'shape':\s*\((\d+),\)/.exec(text)?.[1];
  if (descr !== NPY_DTYPES[dtype].descr || length === undefined || /'fortran_order':\s*True/.test(text))
    throw new Error(`${file}: expected a 1-D ${dtype} array, the header says ${text.slice(10).trim()}`);
  const bytes = data.subarray(headerEnd);
  const { array } = NPY_DTYPES[dtype];
  if (bytes.byteLength !== Number(length) * array.BYTES_PER_ELEMENT)
    throw new Error(`${file}: the header says ${length} elements, the file holds ${bytes.byteLength} bytes of them`);
  // Copied: the buffer of a read file need not be aligned to the element size.
  return new array(new Uint8Array(bytes).buffer) as NpyArray<D>;
}
