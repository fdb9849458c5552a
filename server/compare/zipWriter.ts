import fs from 'node:fs';
import zlib from 'node:zlib';
import { strToU8, Zip, ZipDeflate, type AsyncFlateStreamHandler, type ZipInputFile } from 'fflate';
import { crc32Combine } from './crc32Combine.js';
import { BackgroundFlush } from '../backgroundFlush.js';

/**
 * The zip container of the result workbook: fflate's streaming `Zip` writes the headers, data descriptors and
 * central directory; the sheets' deflate comes from Node's zlib, plugged in through fflate's `ZipInputFile`
 * interface (compression 8, CRC and size supplied by us), so it runs on libuv's thread pool while the caller builds
 * the next rows, and nothing but one buffer of XML is held at a time.
 *
 * Why not exceljs' WorkbookWriter: measured at ~47 µs per 28-column row (47 s for a million rows, the target is
 * 15 s), and it cannot write the inline strings openpyxl writes. exceljs is still what the tests read results with.
 *
 * Why not fflate's own deflate (`ZipDeflate` / `AsyncZipDeflate`) for the sheets: its JS deflate runs at ~146 MB/s
 * at level 1 against zlib's ~520 MB/s, and its JS CRC-32 at ~500 MB/s against zlib.crc32's ~6.8 GB/s (100 MB of
 * sheet XML, 2-core EPYC). On `node bench/compare.mjs --cases stats-1M` (1.1M rows, 1.8 GB of sheet XML) the table
 * took 19.2 s in one thread with AsyncZipDeflate (26.8 s for the run, 500 MB peak RSS) and 19.6 s in the two row
 * workers with fflate's sync-flushed `Deflate` (30.5 s, 36 s CPU), against 12.8 s in one thread with zlib and 6.4 s
 * in the two workers with zlib (14.0 s, 478 MB) — fflate's deflate would miss the 15 s target. With zlib plugged
 * in, fflate's container costs nothing measurable: 14.3–14.9 s best wall, 26.1–26.8 s CPU and 437–462 MB peak
 * against the hand-written writer's 14.4 s, 26.0–26.4 s and 433–451 MB (the machine was shared: wall times varied
 * up to 26 s for both). The small package parts do use `ZipDeflate`.
 */

export interface RawEntryWriter {
  /** Compressed bytes of one segment, with the CRC-32 and length of what they decompress to. */
  write(data: Uint8Array, crc: number, size: number): void;
  close(): void;
}

const FLUSH_BYTES = 1 << 20;
const QUEUE_LIMIT = 32 << 20;
const QUEUE_RESUME = 8 << 20;
const ZIP32_LIMIT = 0xffffffff;

/** 1980-01-01 00:00 local time (DOS time 0): a fixed stamp keeps the bytes reproducible. */
const MTIME = new Date(1980, 0, 1);

export class ZipWriter {
  private readonly zip: Zip;
  private written = 0;
  private failure: Error | null = null;
  private readonly flush: BackgroundFlush;

  constructor(
    private readonly fd: number,
    private readonly level = 1,
  ) {
    this.flush = new BackgroundFlush(fd);
    // fflate calls this synchronously from the entries' ondata: a failed write is kept and thrown at our next call,
    // not through fflate's bookkeeping.
    this.zip = new Zip((err, data) => {
      if (this.failure) return;
      if (err) {
        this.failure = err;
        return;
      }
      try {
        for (let done = 0; done < data.length; ) done += fs.writeSync(this.fd, data, done);
        // fflate writes no zip64 records: offsets past 4 GB would wrap silently.
        this.written += data.length;
        if (this.written > ZIP32_LIMIT) throw new Error('the xlsx would exceed 4 GB, which needs zip64');
        this.flush.wrote(this.written);
      } catch (e) {
        this.failure = e as Error;
      }
    });
  }

  /** The caller is done with the file (fsynced it, or gives up): closed now, or by the last background flush. */
  closeFile(): void {
    this.flush.close();
  }

  /** Throws the first write or compression failure, if any. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /** Opens an entry; write its content through the returned writer and close it before opening the next. */
  open(name: string): ZipEntryWriter {
    this.check();
    const entry = new ZipEntryWriter(name, this.level, () => this.check());
    this.zip.add(entry);
    return entry;
  }

  /**
   * An entry whose deflate data arrives already compressed, in segments (each a sync-flushed raw deflate stream;
   * the last one must end with a final block), with the CRC and size of each segment's uncompressed bytes.
   */
  openRaw(name: string): RawEntryWriter {
    this.check();
    const entry = new PrecompressedEntry(name, () => this.check());
    this.zip.add(entry);
    return entry;
  }

  /** A small entry in one go (fflate's own deflate: these are a few hundred bytes). */
  add(name: string, text: string): void {
    this.check();
    const entry = new ZipDeflate(name, { level: 6 });
    entry.mtime = MTIME;
    this.zip.add(entry);
    entry.push(strToU8(text), true);
    this.check();
  }

  /** Writes the central directory. The caller fsyncs and closes the file. */
  finish(): void {
    this.check();
    this.zip.end();
    this.check();
  }
}

/** Pre-compressed segments from the row workers (parallelTable.ts); their CRCs are combined into the entry's. */
class PrecompressedEntry implements ZipInputFile, RawEntryWriter {
  readonly compression = 8;
  readonly mtime = MTIME;
  crc = 0;
  size = 0;
  private compressed = 0;
  ondata?: AsyncFlateStreamHandler;

  constructor(
    readonly filename: string,
    private readonly check: () => void,
  ) {}

  write(data: Uint8Array, segmentCrc: number, segmentSize: number): void {
    this.crc = this.size === 0 ? segmentCrc : crc32Combine(this.crc, segmentCrc, segmentSize);
    this.size += segmentSize;
    this.compressed += data.length;
    // fflate types chunks as Uint8Array<ArrayBuffer>; it only reads them
    this.ondata!(null, data as Uint8Array<ArrayBuffer>, false);
    this.check();
  }

  close(): void {
    if (this.compressed > ZIP32_LIMIT || this.size > ZIP32_LIMIT) throw new Error(`zip entry ${this.filename} exceeds 4 GB`);
    this.ondata!(null, new Uint8Array(0), true);
    this.check();
  }
}

/** A sheet deflated by Node's zlib as the XML is produced. */
export class ZipEntryWriter implements ZipInputFile {
  readonly compression = 8;
  readonly mtime = MTIME;
  crc = 0;
  size = 0;
  ondata?: AsyncFlateStreamHandler;

  private readonly deflate: zlib.DeflateRaw;
  private buf = Buffer.allocUnsafe(FLUSH_BYTES);
  private pos = 0;
  private compressed = 0;
  /** Bytes handed to the compressor and not yet compressed. */
  private inflight = 0;
  private waiter: (() => void) | null = null;
  private readonly ended: Promise<void>;
  private failure: Error | null = null;

  constructor(
    readonly filename: string,
    level: number,
    private readonly check: () => void,
  ) {
    this.deflate = zlib.createDeflateRaw({ level, memLevel: 9, chunkSize: 1 << 18 });
    this.deflate.on('data', (chunk: Buffer) => {
      this.compressed += chunk.length;
      this.ondata!(null, chunk as Uint8Array<ArrayBuffer>, false);
      try {
        this.check();
      } catch (e) {
        this.failure ??= e as Error;
        this.deflate.destroy(e as Error);
      }
    });
    this.ended = new Promise((resolve, reject) => {
      this.deflate.on('end', resolve);
      this.deflate.on('error', (e) => {
        this.failure ??= e;
        this.waiter?.();
        reject(e);
      });
    });
    // A rejected promise nobody awaits yet must not crash the process; close() surfaces it.
    this.ended.catch(() => undefined);
  }

  /** Appends UTF-8 text; resolves at once unless the compressor has fallen far behind. */
  write(text: string): Promise<void> | void {
    if (this.pos + text.length * 3 > this.buf.length) {
      const pending = this.flush();
      if (text.length * 3 > this.buf.length) {
        // A single huge value (a long stack): its own chunk.
        this.submit(Buffer.from(text, 'utf8'));
        return pending ?? this.backpressure();
      }
      this.pos += this.buf.write(text, this.pos, 'utf8');
      return pending;
    }
    this.pos += this.buf.write(text, this.pos, 'utf8');
  }

  private flush(): Promise<void> | void {
    if (this.pos === 0) return;
    const chunk = this.buf.subarray(0, this.pos);
    // The compressor keeps the chunk until it is done with it: the next text goes to a fresh buffer.
    this.buf = Buffer.allocUnsafe(FLUSH_BYTES);
    this.pos = 0;
    this.submit(chunk);
    return this.backpressure();
  }

  private submit(chunk: Buffer): void {
    if (this.failure) throw this.failure;
    this.crc = zlib.crc32(chunk, this.crc);
    this.size += chunk.length;
    this.inflight += chunk.length;
    this.deflate.write(chunk, () => {
      this.inflight -= chunk.length;
      if (this.waiter && this.inflight <= QUEUE_RESUME) {
        const w = this.waiter;
        this.waiter = null;
        w();
      }
    });
  }

  /** Lets the compressor run on the thread pool while rows are built; waits only when it falls far behind. */
  private backpressure(): Promise<void> | void {
    if (this.inflight <= QUEUE_LIMIT) return;
    return new Promise((resolve) => (this.waiter = resolve));
  }

  async close(): Promise<void> {
    await this.flush();
    this.deflate.end();
    await this.ended;
    if (this.failure) throw this.failure;
    if (this.compressed > ZIP32_LIMIT || this.size > ZIP32_LIMIT) throw new Error(`zip entry ${this.filename} exceeds 4 GB`);
    // crc and size are final: fflate writes them into the data descriptor and the central directory.
    this.ondata!(null, new Uint8Array(0), true);
    this.check();
  }
}
