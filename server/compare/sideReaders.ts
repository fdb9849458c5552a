import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { WORKER_LIMITS } from './workerProtocol.js';
import { SideTable, type SideTableMessage } from '../../src/core/compareTable/sideTable.js';
import { DumpFileError, TOO_DEEP_PROBLEM } from '../../src/core/formats/dumpFileError.js';
import { readSide, type SideDump } from './readSide.js';
import { deserializeError, type SerializedError } from './workerProtocol.js';
import { bundledScript } from '../workers/bundledScript.js';

/**
 * Reads the NPU and Bench dump.json in parallel, one worker thread each (reading is the larger half of a
 * million-row compare). Without the bundled worker script (running from TypeScript sources) they are read here,
 * one after the other.
 */

/** The bundled worker entry (dist/server/compare/compareTableWorker.js), or null when running from sources. */
export function workerScript(): string | null {
  return bundledScript('compare/compareTableWorker.js', import.meta.url);
}

function readInWorker(script: string, file: string, validate: boolean, onBytes: (n: number) => void): Promise<SideDump> {
  return new Promise((resolve, reject) => {
    const w = new Worker(script, { workerData: { kind: 'read', file, validate }, resourceLimits: WORKER_LIMITS });
    let settled = false;
    w.on('message', (msg: { ok?: SideDump & { table: SideTableMessage }; error?: SerializedError; progress?: number }) => {
      if (msg.progress !== undefined) return onBytes(msg.progress);
      settled = true;
      if (msg.error) reject(deserializeError(msg.error));
      else resolve({ ...msg.ok!, table: SideTable.fromMessage(msg.ok!.table) });
      void w.terminate();
    });
    w.once('error', (e) => {
      if (!settled) reject(e);
    });
    w.once('exit', (code) => {
      if (settled) return;
      // A clean exit without an answer: Node drops a posted message it cannot rebuild, which a value nested
      // thousands of levels deep causes (the reader itself accepted it).
      reject(code === 0 ? new DumpFileError(file, TOO_DEEP_PROBLEM) : new DumpFileError(file, `reading stopped (worker exit code ${code})`));
    });
  });
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0; // reading it reports the problem
  }
}

/**
 * `script`: the bundled worker (default: found next to this bundle; null = read in this thread). `onProgress`:
 * bytes read of both files together.
 */
export async function readSides(
  files: [string, string],
  validate: boolean,
  script: string | null = workerScript(),
  onProgress?: (done: number, total: number) => void,
): Promise<[SideDump, SideDump]> {
  const total = fileSize(files[0]) + fileSize(files[1]);
  let done = 0;
  const onBytes = (n: number) => {
    done += n;
    onProgress?.(done, total);
  };
  if (!script) return [readSide(files[0], { validate, onBytes }), readSide(files[1], { validate, onBytes })];
  const [a, b] = await Promise.allSettled(files.map((f) => readInWorker(script, f, validate, onBytes)));
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}
