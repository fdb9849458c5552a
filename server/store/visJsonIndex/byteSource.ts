import { readSync } from 'node:fs';
import type { ByteSource } from './jsonCursor.js';

/** Reads from an open file descriptor (the file is never read whole). */
export function fileSource(fd: number, size: number): ByteSource {
  return {
    size,
    read: (into, at, length, position) => readSync(fd, into, at, length, position),
  };
}

/** Reads from bytes already in memory (small files, tests). */
export function bufferSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read(into, at, length, position) {
      const n = Math.max(0, Math.min(length, bytes.length - position));
      into.set(bytes.subarray(position, position + n), at);
      return n;
    },
  };
}

/**
 * 1-based line and column (in UTF-16 units, as parsePyJson counts) of a byte offset, found by reading the file up
 * to it again: only an error pays for this, so the indexing pass need not count lines.
 */
export function lineColumnAt(src: ByteSource, offset: number): { line: number; column: number } {
  const chunk = new Uint8Array(1 << 20);
  let line = 1;
  let lineStart = 0;
  for (let pos = 0; pos < offset; ) {
    const n = src.read(chunk, 0, Math.min(chunk.length, offset - pos), pos);
    if (n <= 0) break;
    for (let i = chunk.indexOf(0x0a, 0); i >= 0 && i < n; i = chunk.indexOf(0x0a, i + 1)) {
      line++;
      lineStart = pos + i + 1;
    }
    pos += n;
  }
  const head = new Uint8Array(Math.min(offset - lineStart, 1 << 20));
  const n = src.read(head, 0, head.length, offset - head.length);
  const column = new TextDecoder().decode(head.subarray(0, n)).length + 1;
  return { line, column: offset - lineStart > head.length ? offset - lineStart + 1 : column };
}
