import fs from 'node:fs';
import type { TableRow } from '../../src/core/compareTable/highlight.js';
import type { Cell } from '../../src/core/compareTable/statCells.js';
import {
  formatG16,
  headerXml,
  packageParts,
  rowXml,
  sheetHead,
  sheetPlan,
  SHEET_TAIL,
  type WriterStyle,
} from '../../src/core/compareTable/xlsxParts.js';
import { BackgroundFlush } from '../backgroundFlush.js';
import { ZipWriter, type ZipEntryWriter } from './zipWriter.js';

/**
 * Where result rows go: an xlsx written as it is produced (sheets split at msprobe's row limit), or a CSV with the
 * same cells. Both write to an already-reserved temporary path and fsync on close.
 */

export interface ResultSink {
  write(row: TableRow): Promise<void> | void;
  close(): Promise<void>;
  /** Frees the file descriptor after a failure (the caller removes the temporary file). */
  abandon(): void;
}

/** `rowLimit`: rows per sheet before the table is split (msprobe's 1,048,500; smaller in tests). */
export function openXlsxSink(
  file: string,
  header: string[],
  totalRows: number,
  style: WriterStyle,
  rowLimit?: number,
): Promise<ResultSink> {
  return XlsxSink.open(file, header, totalRows, style, rowLimit);
}

class XlsxSink implements ResultSink {
  private sheet = -1;
  private inSheet = 0;
  private entry: ZipEntryWriter | null = null;
  private closed = false;

  private constructor(
    private readonly fd: number,
    private readonly zip: ZipWriter,
    private readonly header: string[],
    private readonly plan: ReturnType<typeof sheetPlan>,
  ) {}

  static async open(file: string, header: string[], totalRows: number, style: WriterStyle, rowLimit?: number): Promise<XlsxSink> {
    const fd = fs.openSync(file, 'w', 0o640);
    const zip = new ZipWriter(fd);
    const plan = sheetPlan(totalRows, style, rowLimit);
    const sink = new XlsxSink(fd, zip, header, plan);
    try {
      for (const [name, xml] of packageParts(plan.names)) zip.add(name, xml);
      await sink.nextSheet();
    } catch (e) {
      sink.abandon();
      throw e;
    }
    return sink;
  }

  private async nextSheet(): Promise<void> {
    if (this.entry) {
      await this.entry.write(SHEET_TAIL);
      await this.entry.close();
    }
    this.sheet++;
    this.inSheet = 0;
    const rows = this.plan.sizes[this.sheet];
    this.entry = this.zip.open(`xl/worksheets/sheet${this.sheet + 1}.xml`);
    await this.entry.write(sheetHead(rows + 1, this.header.length) + headerXml(this.header, this.plan.style));
  }

  async write(row: TableRow): Promise<void> {
    if (this.inSheet >= this.plan.sizes[this.sheet] && this.sheet + 1 < this.plan.sizes.length) await this.nextSheet();
    this.inSheet++;
    const pending = this.entry!.write(rowXml(this.inSheet + 1, row.cells, this.plan.style, row.fill));
    if (pending) await pending;
  }

  async close(): Promise<void> {
    // Sheets the table never reached still get written (empty tables have one sheet with the header).
    while (this.sheet + 1 < this.plan.sizes.length) await this.nextSheet();
    await this.entry!.write(SHEET_TAIL);
    await this.entry!.close();
    this.zip.finish();
    fs.fsyncSync(this.fd);
    this.closed = true;
    this.zip.closeFile();
  }

  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.zip.closeFile();
    } catch {
      // already closed
    }
  }
}

/** CSV text of a cell: the value the default xlsx writer stores, quoted where needed. */
function csvField(v: Cell): string {
  let s: string;
  if (typeof v === 'number') s = v !== v ? '' : Number.isFinite(v) ? formatG16(v) : v > 0 ? 'inf' : '-inf';
  else if (typeof v === 'bigint') s = v.toString();
  else if (typeof v === 'boolean') s = v ? 'True' : 'False';
  else s = v ?? '';
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function openCsvSink(file: string, header: string[]): ResultSink {
  const fd = fs.openSync(file, 'w', 0o640);
  let buffer = header.map(csvField).join(',') + '\n';
  let closed = false;
  const background = new BackgroundFlush(fd);
  let written = 0;
  const flush = () => {
    const buf = Buffer.from(buffer, 'utf8');
    for (let done = 0; done < buf.length; ) done += fs.writeSync(fd, buf, done);
    background.wrote((written += buf.length));
    buffer = '';
  };
  return {
    write(row) {
      buffer += row.cells.map(csvField).join(',') + '\n';
      if (buffer.length > 1 << 20) flush();
    },
    async close() {
      flush();
      fs.fsyncSync(fd);
      closed = true;
      background.close();
    },
    abandon() {
      if (closed) return;
      closed = true;
      try {
        background.close();
      } catch {
        // already closed
      }
    },
  };
}
