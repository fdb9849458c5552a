import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StaleFileError } from '../graphStore.js';
import { bufferSource } from './byteSource.js';
import { rangeSource } from './cappedJson.js';
import type { ByteSource } from './jsonCursor.js';
import { sameStamp, type FileStamp } from './visIndex.js';

/**
 * Where a store reads node records from: the indexed file (by byte range, then a freshness check, since a file
 * rewritten in place would hand out bytes the index does not describe) or the file's bytes held in memory.
 */
export interface NodeBytes {
  read(position: number, length: number): Uint8Array;
  /** The same bytes streamed in chunks (a record of any size), checking the request's work budget per read. */
  source(position: number, length: number): ByteSource;
  /** Throws StaleFileError when the file no longer is what was indexed. */
  assertFresh(): void;
  close(): void;
}

export function memoryBytes(bytes: Uint8Array): NodeBytes {
  return {
    read: (position, length) => bytes.subarray(position, position + length),
    source: (position, length) => rangeSource(bufferSource(bytes).read, position, length),
    assertFresh: () => {},
    close: () => {},
  };
}

/** Opens the file now; throws StaleFileError when it is already not the indexed version. */
export function fileBytes(absPath: string, relPath: string, stamp: FileStamp): NodeBytes {
  const fd = openSync(absPath, 'r');
  const fresh = () => {
    const st = fstatSync(fd);
    return sameStamp({ size: st.size, mtimeMs: st.mtimeMs, ino: st.ino }, stamp);
  };
  if (!fresh()) {
    closeSync(fd);
    throw new StaleFileError(relPath);
  }
  let open = true;
  return {
    read(position, length) {
      const out = Buffer.allocUnsafe(length);
      for (let done = 0; done < length; ) {
        const n = readSync(fd, out, done, length - done, position + done);
        if (n <= 0) throw new StaleFileError(relPath);
        done += n;
      }
      return out;
    },
    source(position, length) {
      return rangeSource((into, at, n, pos) => readSync(fd, into, at, n, pos), position, length);
    },
    assertFresh() {
      if (!fresh()) throw new StaleFileError(relPath);
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
