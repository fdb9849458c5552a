import { Worker } from 'node:worker_threads';
import { NODE_TEXT_AT, type DbConfigRow, type DbNodeRow, type DbStackRow } from '../../src/core/formats/visDb.js';
import { RowPacker } from './dbRowCodec.js';
import { VisDbFile, type DbRowTarget } from './writeDb.js';
import { bundledScript } from '../workers/bundledScript.js';

/**
 * A `.vis.db` written by a worker thread (dbWriterWorker.js next to the bundle): this thread makes the rows and
 * packs them into transferred buffers (dbRowCodec.ts), the worker inserts, indexes and fsyncs on the second core.
 * A few batches may be in flight; then the caller waits until the worker catches up, so memory stays bounded however
 * large the run. From TypeScript sources (tests) the bundled worker is not there and the file is written here.
 */

export type DbWorkerMessage =
  | { t: 'nodes'; packed: ArrayBuffer }
  | { t: 'stacks'; rows: DbStackRow[] }
  | { t: 'distributed'; updates: Array<[string, string]> }
  | { t: 'config'; row: DbConfigRow }
  | { t: 'finish' }
  | { t: 'abandon' };

/** One per message, in order (and one for opening the file). */
export type DbWorkerReply = { ok: true } | { ok: false; message: string; code: string | null };

/** A batch of node rows is sent once it holds this many bytes. */
const BATCH_BYTES = 1 << 20;
/** Messages sent and not yet answered before the caller waits. */
const MAX_IN_FLIGHT = 4;

export function defaultDbWorkerScript(): string | null {
  return bundledScript('graph/dbWriterWorker.js', import.meta.url);
}

/** The row target for `file`: the writer thread when its script is there (`script` null: this thread). */
export function openDbRowTarget(file: string, script: string | null = defaultDbWorkerScript()): DbRowTarget {
  return script ? new DbWorkerTarget(file, script) : new VisDbFile(file);
}

/** What the writer thread failed with (SQLite's message and code). */
export class DbWriteError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'DbWriteError';
  }
}

class DbWorkerTarget implements DbRowTarget {
  private readonly worker: Worker;
  private readonly packer = new RowPacker(BATCH_BYTES + (BATCH_BYTES >> 1));
  /** Answers still to come (opening the file counts as one). */
  private pending = 1;
  private failure: Error | null = null;
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(file: string, script: string) {
    // A small young generation: the thread only holds a batch of rows at a time.
    this.worker = new Worker(script, { workerData: { file }, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    this.worker.on('message', (r: DbWorkerReply) => {
      this.pending--;
      if (!r.ok) this.failure ??= new DbWriteError(r.message, r.code);
      this.notify();
    });
    this.worker.on('error', (e) => {
      this.failure ??= e;
      this.notify();
    });
    this.worker.on('exit', (code) => {
      if (!this.closed) this.failure ??= new DbWriteError(`the .vis.db writer thread stopped (exit code ${code})`, null);
      this.notify();
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private async until(done: () => boolean): Promise<void> {
    while (!done() && !this.failure) await new Promise<void>((r) => (this.wake = r));
    if (this.failure) {
      this.stop();
      throw this.failure;
    }
  }

  private send(m: DbWorkerMessage, transfer?: ArrayBuffer): Promise<void> | void {
    if (this.failure) return this.until(() => false);
    this.worker.postMessage(m, transfer ? [transfer] : undefined);
    this.pending++;
    if (this.pending > MAX_IN_FLIGHT) return this.until(() => this.pending <= MAX_IN_FLIGHT);
  }

  private flush(): Promise<void> | void {
    if (this.packer.rows === 0) return;
    const packed = this.packer.take();
    return this.send({ t: 'nodes', packed }, packed);
  }

  node(row: DbNodeRow): Promise<void> | void {
    this.packer.add(row, NODE_TEXT_AT);
    if (this.packer.bytes >= BATCH_BYTES) return this.flush();
  }

  async stacks(rows: DbStackRow[]): Promise<void> {
    await this.flush();
    await this.send({ t: 'stacks', rows });
  }

  async distributed(updates: Array<[string, string]>): Promise<void> {
    await this.flush();
    await this.send({ t: 'distributed', updates });
  }

  async config(row: DbConfigRow): Promise<void> {
    await this.flush();
    await this.send({ t: 'config', row });
  }

  async finish(): Promise<void> {
    await this.flush();
    await this.send({ t: 'finish' });
    await this.until(() => this.pending === 0);
    this.stop();
  }

  /** Settles once the thread has stopped, so the file can be removed for good. */
  async abandon(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.worker.postMessage({ t: 'abandon' } satisfies DbWorkerMessage);
    await this.worker.terminate();
  }

  private stop(): void {
    if (this.closed) return;
    this.closed = true;
    void this.worker.terminate();
  }
}
