import { Buffer } from 'node:buffer';

/**
 * Rows (arrays of strings, numbers and nulls) packed into one ArrayBuffer, so a batch crosses to the `.vis.db`
 * writer thread as a transfer instead of a structured clone of every string: packing is a byte copy, and the
 * other thread gets flat strings back. Values come back exactly as given (numbers are float64, as JS holds them).
 */

const NULL = 0;
const NUMBER = 1;
const STRING = 2;
/** A string handed back as its UTF-8 bytes (a Buffer view of the batch). */
const BYTES = 3;

export type RowValue = string | number | null;

/** Accumulates rows; `take()` hands over the packed bytes and starts a new batch. */
export class RowPacker {
  private buf: Buffer;
  /** The batch starts with its byte length and row count. */
  private pos = 8;
  private rowCount = 0;

  constructor(private readonly initialSize = 1 << 20) {
    this.buf = Buffer.allocUnsafeSlow(initialSize);
  }

  get bytes(): number {
    return this.pos - 8;
  }

  get rows(): number {
    return this.rowCount;
  }

  /** `asBytes[i]`: column i's string comes back as its UTF-8 bytes (`unpackRows`), not as a string. */
  add(row: readonly RowValue[], asBytes?: readonly boolean[]): void {
    this.reserve(5);
    putU32(this.buf, this.pos, row.length);
    this.pos += 4;
    for (let c = 0; c < row.length; c++) {
      const v = row[c];
      if (v === null || v === undefined) {
        this.reserve(1);
        this.buf[this.pos++] = NULL;
      } else if (typeof v === 'number') {
        this.reserve(9);
        this.buf[this.pos++] = NUMBER;
        this.buf.writeDoubleLE(v, this.pos);
        this.pos += 8;
      } else {
        // UTF-8 needs at most 3 bytes per UTF-16 unit.
        this.reserve(5 + v.length * 3);
        const buf = this.buf;
        buf[this.pos] = asBytes?.[c] ? BYTES : STRING;
        let written = -1;
        if (v.length <= 64) {
          // Short strings (ids, names) byte by byte: a native call each would cost more than the copy.
          const at = this.pos + 5;
          let i = 0;
          for (; i < v.length; i++) {
            const c = v.charCodeAt(i);
            if (c >= 0x80) break;
            buf[at + i] = c;
          }
          if (i === v.length) written = i;
        }
        if (written < 0) written = buf.write(v, this.pos + 5, 'utf8');
        putU32(buf, this.pos + 1, written);
        this.pos += 5 + written;
      }
    }
    this.rowCount++;
  }

  /** The packed batch (its own ArrayBuffer, to transfer); the packer starts a new one. */
  take(): ArrayBuffer {
    this.buf.writeUInt32LE(this.pos, 0);
    this.buf.writeUInt32LE(this.rowCount, 4);
    const out = this.buf.buffer as ArrayBuffer;
    this.buf = Buffer.allocUnsafeSlow(this.initialSize);
    this.pos = 8;
    this.rowCount = 0;
    return out;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }
}

/** A little-endian uint32 by hand: Buffer's writeUInt32LE checks its arguments on every call, a row's worth of times. */
function putU32(buf: Buffer, at: number, v: number): void {
  buf[at] = v & 0xff;
  buf[at + 1] = (v >>> 8) & 0xff;
  buf[at + 2] = (v >>> 16) & 0xff;
  buf[at + 3] = v >>> 24;
}

/** The rows of a batch made by `RowPacker.take()`; strings packed as bytes are Buffer views of `data`. */
export function unpackRows(data: ArrayBuffer): Array<Array<RowValue | Buffer>> {
  const buf = Buffer.from(data);
  const count = buf.readUInt32LE(4);
  let pos = 8;
  const rows: Array<Array<RowValue | Buffer>> = new Array(count);
  for (let r = 0; r < count; r++) {
    const n = buf.readUInt32LE(pos);
    pos += 4;
    const row: Array<RowValue | Buffer> = new Array(n);
    for (let i = 0; i < n; i++) {
      const tag = buf[pos++];
      if (tag === NULL) row[i] = null;
      else if (tag === NUMBER) {
        row[i] = buf.readDoubleLE(pos);
        pos += 8;
      } else {
        const len = buf.readUInt32LE(pos);
        pos += 4;
        row[i] = tag === BYTES ? buf.subarray(pos, pos + len) : buf.toString('utf8', pos, pos + len);
        pos += len;
      }
    }
    rows[r] = row;
  }
  return rows;
}
