import fs from 'node:fs';

/**
 * `fdatasync` in libuv's pool each time a file grew by `every` bytes while it is being written (the writer is busy
 * making the rest meanwhile): the closing fsync, which the run waits for, then has only the last few megabytes to
 * flush. The writer never waits for these, and their callbacks may only run once it is done (a synchronous writer
 * gives the event loop no turn), so they are not chained: each starts on its own, and the last to finish closes the
 * file if the writer is done with it by then.
 */
export class BackgroundFlush {
  private flushed = 0;
  private running = 0;
  private closeAfter = false;
  /** Flushes started. */
  started = 0;

  constructor(
    private readonly fd: number,
    private readonly every = 8 << 20,
  ) {}

  /** The file now holds `total` bytes. */
  wrote(total: number): void {
    if (total - this.flushed < this.every) return;
    this.flushed = total;
    this.running++;
    this.started++;
    fs.fdatasync(this.fd, () => {
      if (--this.running === 0 && this.closeAfter) fs.close(this.fd, () => {});
    });
  }

  /** The writer is done with the file: true when flushes are still running (the last one closes it). */
  closeWhenDone(): boolean {
    this.closeAfter = this.running > 0;
    return this.closeAfter;
  }

  /** Closes the file now, or leaves it to the last running flush. */
  close(): void {
    if (!this.closeWhenDone()) fs.closeSync(this.fd);
  }
}
