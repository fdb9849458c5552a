import fs from 'node:fs';
import { firstFrameworkType, frameworkOfType, hasMd5 } from '../../src/core/compare/mode.js';
import { DumpJsonScanner } from '../../src/core/compareTable/dumpJsonScanner.js';
import { isFormulaLike, validateDumpEntry } from '../../src/core/compareTable/dumpValidation.js';
import { fastEntryRows } from '../../src/core/compareTable/fastEntry.js';
import { opRows } from '../../src/core/compareTable/opRows.js';
import { DumpFileError, readingFile } from '../../src/core/formats/dumpFileError.js';
import type { SideTable } from '../../src/core/compareTable/sideTable.js';
import { SideTableBuilder } from '../../src/core/compareTable/sideTableBuilder.js';
import type { PyValue } from '../../src/core/formats/pyJson.js';

/** One dump.json read into a compact table, streamed in chunks (see DumpJsonScanner). */

export interface SideDump {
  file: string;
  table: SideTable;
  /** Top-level keys as parsed (`task`, `framework`, …); `data` present as a key with value null when it was an object. */
  top: Map<string, PyValue>;
  hasData: boolean;
  dataIsObject: boolean;
  /** msprobe md5 detection over all entries. */
  hasMd5: boolean;
  /** Framework of the first `"type": "torch…"` / `"type": "mindspore…"` descriptor, in file order. */
  typeFramework: 'pytorch' | 'mindspore' | null;
}

const CHUNK = 4 << 20;

/** A file-system call on the dump.json, its failure reported as a problem of that file. */
function fileCall<T>(file: string, call: () => T): T {
  try {
    return call();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new DumpFileError(file, code === 'ENOENT' ? 'not found' : `cannot be read (${code ?? e})`);
  }
}

export interface ReadSideOptions {
  validate: boolean;
  /** The finished table's buffers are SharedArrayBuffers (to be read by several threads). */
  shared?: boolean;
  /** Called after each chunk read, with that chunk's byte count (progress). */
  onBytes?: (bytes: number) => void;
}

export function readSide(file: string, options: ReadSideOptions = { validate: true }): SideDump {
  return readingFile(file, () => readSideUnguarded(file, options));
}

function readSideUnguarded(file: string, options: ReadSideOptions): SideDump {
  const size = fileCall(file, () => fs.statSync(file).size);
  const builder = new SideTableBuilder(Math.max(1024, Math.round(size / 280)), options.shared ?? false);
  const top = new Map<string, PyValue>();
  let md5 = false;
  let typeFramework: SideDump['typeFramework'] = null;
  let hasData = false;
  let dataIsObject = false;
  const scanner = new DumpJsonScanner(file, {
    top(key, value) {
      top.set(key, value);
      if (key === 'data') hasData = true;
    },
    dataStart() {
      hasData = true;
      dataIsObject = true;
    },
    entry(key, text, parse) {
      const api = builder.addApi(key);
      const fast = fastEntryRows(key, text);
      if (fast) {
        if (options.validate && isFormulaLike(key)) validateDumpEntry(key, null, file);
        if (fast.hasMd5) md5 = true;
        if (!typeFramework && fast.firstType) typeFramework = frameworkOfType(fast.firstType);
        for (const row of fast.rows) builder.addRow(api, row);
        return;
      }
      const value = parse();
      if (options.validate) validateDumpEntry(key, value, file);
      if (!md5 && hasMd5(new Map([[key, value]]))) md5 = true;
      if (!typeFramework) typeFramework = firstFrameworkType(value, 400);
      for (const row of opRows(key, value, file)) builder.addRow(api, row);
    },
  });
  const fd = fileCall(file, () => fs.openSync(file, 'r'));
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      // The scanner copies whatever it keeps, so the read buffer can be reused.
      scanner.push(buf.subarray(0, n));
      options.onBytes?.(n);
    }
    scanner.end();
  } finally {
    fs.closeSync(fd);
  }
  return { file, table: builder.finish(), top, hasData, dataIsObject, hasMd5: md5, typeFramework };
}
