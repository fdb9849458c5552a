import { DumpContentError } from '../../src/core/compareTable/dumpValidation.js';
import { MappingFileError } from '../../src/core/compareTable/mappingFileError.js';
import { DumpFileError } from '../../src/core/formats/dumpFileError.js';
import { PyJsonError } from '../../src/core/formats/pyJson.js';

/**
 * Worker threads of the compare command: heap limits, and errors that keep their class across the boundary (the
 * CLI prints them as one line with the right exit code).
 */

/**
 * Heap limits of the compare workers: their work streams (tables live in SharedArrayBuffers, outside the heap), so
 * small generations make V8 collect sooner instead of growing each worker's heap by hundreds of MB (a 16 MB young
 * generation costs ~50 MB more peak RSS for a few percent less GC time).
 */
export const WORKER_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 6 };

export interface SerializedError {
  name: string;
  message: string;
  file?: string;
  problem?: string;
  line?: number;
  column?: number;
}

export function serializeError(e: unknown): SerializedError {
  if (e instanceof PyJsonError) return { name: e.name, message: e.message, file: e.file, problem: e.problem, line: e.line, column: e.column };
  if (e instanceof DumpContentError || e instanceof DumpFileError || e instanceof MappingFileError) {
    return { name: e.name, message: e.message, file: e.file, problem: e.problem };
  }
  return { name: 'Error', message: e instanceof Error ? e.message : String(e) };
}

export function deserializeError(e: SerializedError): Error {
  if (e.name === 'PyJsonError') return new PyJsonError(e.file!, e.line!, e.column!, e.problem!);
  if (e.name === 'DumpContentError') return new DumpContentError(e.file!, e.problem!);
  if (e.name === 'DumpFileError') return new DumpFileError(e.file!, e.problem!);
  if (e.name === 'MappingFileError') return new MappingFileError(e.file!, e.problem!);
  return new Error(e.message);
}
