import { lineColumnAt } from './byteSource.js';
import { JsonSyntaxError, type ByteSource } from './jsonCursor.js';
import { INDEX_FORMAT_VERSION, type FileStamp, type VisIndex } from './visIndex.js';
import { NotAGraphError, scanVis } from './visScanner.js';

/** Chunk read per fs.read: large enough that syscalls vanish in the profile, small next to the RSS budget. */
export const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;

/** The file is not a readable graph: `problem` is one line for `{file}: {problem}`. */
export class VisIndexError extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'VisIndexError';
  }
}

export interface BuildOptions {
  stamp: FileStamp;
  chunkSize?: number;
  onRead?: (bytesRead: number) => void;
}

/**
 * Indexes a `.vis` read from `src`. Throws VisIndexError for syntax errors (with line:column and byte offset, so
 * a truncated file names where it stops) and for JSON that is not a graph.
 */
export function buildVisIndex(src: ByteSource, options: BuildOptions): VisIndex {
  try {
    const scan = scanVis(src, { chunkSize: options.chunkSize ?? DEFAULT_CHUNK_BYTES, onRead: options.onRead });
    return {
      version: INDEX_FORMAT_VERSION,
      graphType: scan.graphType,
      sides: scan.sides,
      metaText: scan.metaText,
      stamp: options.stamp,
    };
  } catch (e) {
    if (e instanceof JsonSyntaxError) {
      const { line, column } = lineColumnAt(src, e.offset);
      throw new VisIndexError(`line ${line}:${column}: ${e.problem} (byte ${e.offset})`);
    }
    if (e instanceof NotAGraphError) throw new VisIndexError(e.message);
    throw e;
  }
}
