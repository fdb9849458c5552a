import ExcelJS from 'exceljs';

/**
 * Reading a result workbook back cell by cell in the shape of the goldens' `*.cells.json` (value `v`, openpyxl type
 * `t`: s / n / b / inlineStr for an empty cell, `fill` rgb when solid-filled).
 */

export interface GoldenCell {
  v: string | number | boolean | null;
  t: 's' | 'n' | 'b' | 'inlineStr';
  fill?: string;
}

export type GoldenBook = Record<string, GoldenCell[][]>;

export async function readBook(file: string): Promise<GoldenBook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  const out: GoldenBook = {};
  for (const ws of wb.worksheets) {
    const rows: GoldenCell[][] = [];
    const width = ws.getRow(1).cellCount;
    ws.eachRow({ includeEmpty: true }, (row) => {
      const cells: GoldenCell[] = [];
      for (let c = 1; c <= width; c++) {
        const cell = row.getCell(c);
        const v = cell.value;
        let gc: GoldenCell;
        if (typeof v === 'number') gc = { v, t: 'n' };
        else if (typeof v === 'boolean') gc = { v, t: 'b' };
        else if (typeof v === 'string' && v !== '') gc = { v, t: 's' };
        else if (v && typeof v === 'object' && 'richText' in v) {
          const text = v.richText.map((r) => r.text).join('');
          gc = text === '' ? { v: null, t: 'inlineStr' } : { v: text, t: 's' };
        } else gc = { v: null, t: 'inlineStr' };
        const fill = cell.fill;
        if (fill && fill.type === 'pattern' && fill.pattern === 'solid' && fill.fgColor?.argb) gc.fill = fill.fgColor.argb;
        cells.push(gc);
      }
      rows.push(cells);
    });
    out[ws.name] = rows;
  }
  return out;
}

function sameNumber(header: string, ours: number, golden: number): boolean {
  if (ours === golden) return true;
  return header === 'EucDist' && Math.abs(ours - golden) <= 1e-12 * Math.max(Math.abs(ours), Math.abs(golden));
}

/** Cell-by-cell differences, as readable lines (empty when equal). */
export function bookDifferences(ours: GoldenBook, golden: GoldenBook): string[] {
  const out: string[] = [];
  if (Object.keys(ours).join() !== Object.keys(golden).join()) out.push(`sheets ${Object.keys(ours)} vs ${Object.keys(golden)}`);
  for (const [sheet, rows] of Object.entries(golden)) {
    const mine = ours[sheet];
    if (mine.length !== rows.length) out.push(`${sheet}: ${mine.length} rows, golden ${rows.length}`);
    const header = rows[0].map((c) => String(c.v));
    rows.forEach((row, r) => {
      const ourRow = mine[r] ?? [];
      if (ourRow.length !== row.length) out.push(`${sheet} row ${r}: ${ourRow.length} cells, golden ${row.length}`);
      row.forEach((g: GoldenCell, c) => {
        const o = ourRow[c];
        const value =
          typeof o?.v === 'number' && typeof g.v === 'number' && typeof o.v !== 'boolean'
            ? sameNumber(header[c], o.v, g.v)
            : o?.v === g.v;
        if (!o || !value || o.t !== g.t || o.fill !== g.fill) {
          out.push(`${sheet} row ${r} ${header[c]}: ours ${JSON.stringify(o)} golden ${JSON.stringify(g)}`);
        }
      });
    });
  }
  return out;
}

