import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

/** Mode of the files written for the user: the original viewer chmods what it saves to 0640 (reference-viewer.md §4.5). */
export const WRITTEN_MODE = 0o640;

/** A temporary name beside `target` (same directory, so the rename is atomic), hidden and carrying our PID. */
export function tempBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * Writes `target` as a whole or not at all: `fill` writes a new temporary file beside it (fd open for writing), which
 * is fsynced, renamed over `target`, and the directory fsynced so the rename survives a crash. On any failure the
 * temporary file is removed and `target` is untouched. The one way the server writes a file (user's or cache).
 */
export function writeAtomically(target: string, fill: (fd: number, tempPath: string) => void, mode = WRITTEN_MODE): void {
  const temp = tempBeside(target);
  const fd = openSync(temp, 'wx', mode);
  let open = true;
  try {
    fill(fd, temp);
    fsyncSync(fd);
    closeSync(fd);
    open = false;
    renameSync(temp, target);
  } catch (e) {
    if (open) closeSync(fd);
    rmSync(temp, { force: true });
    throw e;
  }
  syncDir(path.dirname(target));
}

/** Makes a rename durable; some file systems refuse fsync on a directory, which costs only that. */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
