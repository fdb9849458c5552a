/**
 * TFRecord framing of TensorBoard event files (data/tb README): per record `uint64 length` (LE), masked CRC-32C of
 * those 8 bytes, `data[length]`, masked CRC-32C of the data. Both CRCs are checked. Records are read from a
 * `ByteSource` in chunks, so a file of many scalars is never held in memory at once; the records before a damaged
 * one are yielded, then a `TbFormatError` naming its offset is thrown.
 */
import { maskedCrc32c } from './crc32c.js';
import { TbFormatError } from './tbError.js';

/** Random access to a file's bytes: a Node file handle, a browser `Blob`, or bytes already in memory. */
export interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes at `offset` (fewer only at the end of the source). */
  read(offset: number, length: number): Promise<Uint8Array>;
}

export function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: async (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)),
  };
}

export interface TfRecord {
  /** Byte offset of the record's header. */
  offset: number;
  /** The payload; a view that stays valid (each chunk is a fresh read), but holds its chunk alive while kept. */
  data: Uint8Array;
}

const HEADER = 12;
const FOOTER = 4;
const DEFAULT_CHUNK = 1 << 20;

function u32(b: Uint8Array, i: number): number {
  return (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
}

/** A chunk of the source; small records are served from it without another read. */
class Window {
  private buf: Uint8Array = new Uint8Array(0);
  private start = 0;
  constructor(
    private readonly source: ByteSource,
    private readonly chunk: number,
  ) {}

  /** `[offset, offset + length)` if the current chunk holds it, else null (then `load`). */
  peek(offset: number, length: number): Uint8Array | null {
    const from = offset - this.start;
    if (from < 0 || from + length > this.buf.length) return null;
    return this.buf.subarray(from, from + length);
  }

  async load(offset: number, length: number): Promise<Uint8Array> {
    const want = Math.min(this.source.size - offset, Math.max(length, this.chunk));
    this.buf = await this.source.read(offset, want);
    this.start = offset;
    if (this.buf.length < length) throw new TbFormatError(`short read at offset ${offset}`, { offset });
    return this.buf.subarray(0, length);
  }
}

/**
 * Calls `onRecord` for each record in order (return `false` to stop). Awaits only when a chunk must be read, so
 * a file of millions of small scalar records costs one read per chunk, not one promise per record.
 */
export async function forEachTfRecord(
  source: ByteSource,
  onRecord: (rec: TfRecord) => boolean | void,
  opts: { chunkSize?: number; startOffset?: number } = {},
): Promise<void> {
  const win = new Window(source, opts.chunkSize ?? DEFAULT_CHUNK);
  const size = source.size;
  let pos = opts.startOffset ?? 0;
  while (pos < size) {
    const left = size - pos;
    if (left < HEADER)
      throw new TbFormatError(`truncated header at offset ${pos} (${left} bytes left)`, { offset: pos });
    const header = win.peek(pos, HEADER) ?? (await win.load(pos, HEADER));
    if (maskedCrc32c(header, 0, 8) !== u32(header, 8))
      throw new TbFormatError(`bad length CRC at offset ${pos}`, { offset: pos });
    const length = u32(header, 4) * 2 ** 32 + u32(header, 0);
    const total = HEADER + length + FOOTER;
    if (total > left)
      throw new TbFormatError(`truncated record at offset ${pos} (need ${total} bytes, have ${left})`, {
        offset: pos,
      });
    const body = win.peek(pos + HEADER, length + FOOTER) ?? (await win.load(pos + HEADER, length + FOOTER));
    if (maskedCrc32c(body, 0, length) !== u32(body, length))
      throw new TbFormatError(`bad data CRC at offset ${pos}`, { offset: pos });
    if (onRecord({ offset: pos, data: body.subarray(0, length) }) === false) return;
    pos += total;
  }
}

/** The one record at `offset` (its CRCs checked again), e.g. a graph found by an earlier scan. */
export async function readTfRecordAt(source: ByteSource, offset: number): Promise<TfRecord> {
  let found = null as TfRecord | null;
  await forEachTfRecord(
    source,
    (rec) => {
      found = rec;
      return false;
    },
    { startOffset: offset, chunkSize: HEADER },
  );
  if (!found) throw new TbFormatError(`no record at offset ${offset}`, { offset });
  return found;
}
