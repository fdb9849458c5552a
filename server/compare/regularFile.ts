import fs from 'node:fs';
import { DumpFileError } from '../../src/core/formats/dumpFileError.js';

/**
 * What a path that exists but is no regular file is, in words, or null (a regular file, or nothing there: the
 * caller's own read reports that). Checked before opening: reading a FIFO blocks until a writer comes, and
 * /dev/zero never ends.
 */
export function notRegularFile(file: string): string | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return null;
  }
  if (st.isFile()) return null;
  const kind = st.isDirectory()
    ? 'a directory'
    : st.isFIFO()
      ? 'a FIFO'
      : st.isCharacterDevice() || st.isBlockDevice()
        ? 'a device'
        : st.isSocket()
          ? 'a socket'
          : 'a special file';
  return `is not a regular file (${kind})`;
}

/** Throws `error(file, problem)` (default DumpFileError) when `file` exists and is not a regular file. */
export function requireRegularFile(file: string, error: (file: string, problem: string) => Error = (f, p) => new DumpFileError(f, p)): void {
  const problem = notRegularFile(file);
  if (problem) throw error(file, problem);
}
