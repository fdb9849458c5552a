import { pyExp } from '../formats/pyFormat.js';
import type { Fill } from './highlight.js';
import type { Cell } from './statCells.js';

/**
 * The XML parts of the result workbook, written the way msprobe's writers (pandas + openpyxl) write them
 * (msprobe-compare.md §5): inline strings, numbers as `%.16g`, booleans as boolean cells, an empty inline string for
 * NaN/None/"", inf as the text `inf`; with `-hl` every non-number as its `str()` (inf/nan with a tab appended) and
 * whole rows filled red/yellow. Pure string building; the zip container is the caller's.
 */

export type WriterStyle = 'default' | 'highlight';

/** Cell style ids in styles.xml. */
const HEADER_STYLE = 1;
const RED_STYLE = 2;
const YELLOW_STYLE = 3;

/**
 * C `printf("%.16g")` (what openpyxl writes for a float). JS's `toExponential(16)` gives 17 correctly rounded
 * digits; the 17th decides the rounding to 16 unless it is a 5, where `toExponential(20)` looks further, and only
 * digits reading exactly 50000 (a possible tie, which C rounds half to even on the exact binary value) go to the
 * exact formatter.
 */
export function formatG16(x: number): string {
  if (Number.isInteger(x) && x < 1e16 && x > -1e16) return Object.is(x, -0) ? '-0' : String(x);
  const negative = x < 0;
  const d0 = negative ? 1 : 0;
  let q = x.toExponential(16);
  let up = q.charCodeAt(d0 + 17) > 0x35;
  if (q.charCodeAt(d0 + 17) === 0x35) {
    q = x.toExponential(20);
    const tail = q.slice(d0 + 17, d0 + 22);
    if (tail === '50000') return fromExact(x);
    up = tail > '50000';
  }
  let digits = q[d0] + q.slice(d0 + 2, d0 + 17);
  let exp = Number(q.slice(q.indexOf('e', d0 + 18) + 1));
  if (up) {
    const inc = incrementDigits(digits);
    if (inc.length > 16) {
      digits = inc.slice(0, 16);
      exp++;
    } else digits = inc;
  }
  return (negative ? '-' : '') + gLayout(digits, exp);
}

function incrementDigits(d: string): string {
  let i = d.length - 1;
  while (i >= 0 && d.charCodeAt(i) === 0x39) i--;
  if (i < 0) return '1' + '0'.repeat(d.length);
  return d.slice(0, i) + String.fromCharCode(d.charCodeAt(i) + 1) + '0'.repeat(d.length - 1 - i);
}

/** `%g` layout of 16 significant digits with decimal exponent `exp`. */
function gLayout(digits: string, exp: number): string {
  let end = 16;
  while (end > 1 && digits.charCodeAt(end - 1) === 0x30) end--;
  if (exp < -4 || exp >= 16) {
    const frac = end > 1 ? '.' + digits.slice(1, end) : '';
    const e = exp < 0 ? -exp : exp;
    return `${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp >= 0) return end > exp + 1 ? `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1, end)}` : digits.slice(0, exp + 1);
  return `0.${'0'.repeat(-exp - 1)}${digits.slice(0, end)}`;
}

/** The tie case, from the exact half-even formatter. */
function fromExact(x: number): string {
  const e = pyExp(x, 15);
  const at = e.indexOf('e');
  const negative = x < 0;
  const m = e.slice(negative ? 1 : 0, at);
  return (negative ? '-' : '') + gLayout(m[0] + m.slice(2), Number(e.slice(at + 1)));
}

const COLUMN_CACHE: string[] = [];
export function columnLetters(index: number): string {
  let s = COLUMN_CACHE[index];
  if (s) return s;
  s = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  COLUMN_CACHE[index] = s;
  return s;
}

const XML_SPECIAL = /[&<>\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;
const XML_SPECIAL_G = /[&<>\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

/** XML text; characters XML 1.0 cannot hold are written as OOXML `_xHHHH_` escapes. */
export function xmlText(s: string): string {
  if (!XML_SPECIAL.test(s)) return s;
  return s.replace(XML_SPECIAL_G, (c) => {
    if (c === '&') return '&amp;';
    if (c === '<') return '&lt;';
    if (c === '>') return '&gt;';
    return `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;
  });
}

/** The text of a number cell: openpyxl's `%.16g`. */
export const numberText = formatG16;

const CELL_OPEN: string[] = [];
function cellOpen(c: number): string {
  return (CELL_OPEN[c] ??= `<c r="${columnLetters(c)}`);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** `ref` is the cell's `<c r="A12` prefix; `style` ` s="2"` or ''. */
function stringCell(ref: string, style: string, s: string): string {
  if (s === '') return `${ref}"${style} t="inlineStr"></c>`;
  const preserve = isSpace(s.charCodeAt(0)) || isSpace(s.charCodeAt(s.length - 1)) ? ' xml:space="preserve"' : '';
  return `${ref}"${style} t="inlineStr"><is><t${preserve}>${xmlText(s)}</t></is></c>`;
}

function numberCell(ref: string, style: string, text: string): string {
  return `${ref}"${style} t="n"><v>${text}</v></c>`;
}

/** The cell as the default (pandas `to_excel`) writer stores it. */
function defaultCell(ref: string, v: Cell): string {
  switch (typeof v) {
    case 'number':
      if (v !== v) return stringCell(ref, '', '');
      if (!Number.isFinite(v)) return stringCell(ref, '', v > 0 ? 'inf' : '-inf');
      return numberCell(ref, '', numberText(v));
    case 'bigint':
      return numberCell(ref, '', v.toString());
    case 'boolean':
      return `${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
    case 'string':
      return stringCell(ref, '', v);
    default:
      return stringCell(ref, '', '');
  }
}

/** msprobe `compare_result_df_convert` + openpyxl: only ints and floats stay numbers. */
function highlightCell(ref: string, style: string, v: Cell): string {
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return numberCell(ref, style, numberText(v));
    return stringCell(ref, style, `${v !== v ? 'nan' : v > 0 ? 'inf' : '-inf'}\t`);
  }
  if (typeof v === 'bigint') return numberCell(ref, style, v.toString());
  const s = v === null ? 'None' : typeof v === 'boolean' ? (v ? 'True' : 'False') : v;
  return stringCell(ref, style, s === 'inf' || s === '-inf' || s === 'nan' ? `${s}\t` : s);
}

/** One `<row>` element; `rowNumber` is 1-based. */
export function rowXml(rowNumber: number, cells: readonly Cell[], style: WriterStyle, fill: Fill = null): string {
  const rn = String(rowNumber);
  let out = `<row r="${rn}">`;
  if (style === 'default') {
    for (let c = 0; c < cells.length; c++) out += defaultCell(cellOpen(c) + rn, cells[c]);
  } else {
    const s = fill === 'red' ? ` s="${RED_STYLE}"` : fill === 'yellow' ? ` s="${YELLOW_STYLE}"` : '';
    for (let c = 0; c < cells.length; c++) out += highlightCell(cellOpen(c) + rn, s, cells[c]);
  }
  return out + '</row>';
}

export function headerXml(header: readonly string[], style: WriterStyle): string {
  let out = '<row r="1">';
  const s = style === 'default' ? ` s="${HEADER_STYLE}"` : '';
  for (let c = 0; c < header.length; c++) out += stringCell(cellOpen(c) + '1', s, header[c]);
  return out + '</row>';
}

const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

export function sheetHead(rows: number, columns: number): string {
  const dim = rows > 0 && columns > 0 ? `A1:${columnLetters(columns - 1)}${rows}` : 'A1';
  return (
    `${XML_DECL}<worksheet xmlns="${MAIN_NS}"><sheetPr><outlinePr summaryBelow="1" summaryRight="1"/><pageSetUpPr/></sheetPr>` +
    `<dimension ref="${dim}"/><sheetViews><sheetView workbookViewId="0"><selection activeCell="A1" sqref="A1"/></sheetView>` +
    `</sheetViews><sheetFormatPr baseColWidth="8" defaultRowHeight="15"/><sheetData>`
  );
}

export const SHEET_TAIL =
  '</sheetData><pageMargins left="0.75" right="0.75" top="1" bottom="1" header="0.5" footer="0.5"/></worksheet>';

/** The fixed parts of the package for the given sheet names (sheet i is `xl/worksheets/sheet{i+1}.xml`). */
export function packageParts(sheetNames: readonly string[]): Array<[path: string, xml: string]> {
  const sheets = sheetNames.map((_, i) => i + 1);
  return [
    [
      '[Content_Types].xml',
      `${XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        sheets
          .map(
            (i) =>
              `<Override PartName="/xl/worksheets/sheet${i}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
          )
          .join('') +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
        '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' +
        '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>' +
        '</Types>',
    ],
    [
      '_rels/.rels',
      `${XML_DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
        '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/>' +
        '</Relationships>',
    ],
    [
      'docProps/app.xml',
      `${XML_DECL}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>probeboard</Application></Properties>`,
    ],
    [
      'docProps/core.xml',
      `${XML_DECL}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>probeboard</dc:creator></cp:coreProperties>',
    ],
    [
      'xl/workbook.xml',
      `${XML_DECL}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><bookViews><workbookView/></bookViews><sheets>` +
        sheetNames.map((name, i) => `<sheet name="${xmlText(name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
        '</sheets></workbook>',
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${XML_DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        sheets
          .map(
            (i) =>
              `<Relationship Id="rId${i}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${i}.xml"/>`,
          )
          .join('') +
        `<Relationship Id="rId${sheets.length + 1}" Type="${REL_NS}/styles" Target="styles.xml"/>` +
        '</Relationships>',
    ],
    [
      'xl/styles.xml',
      `${XML_DECL}<styleSheet xmlns="${MAIN_NS}"><numFmts count="0"/>` +
        '<fonts count="2"><font><name val="Calibri"/><family val="2"/><color theme="1"/><sz val="11"/><scheme val="minor"/></font>' +
        '<font><b val="1"/></font></fonts>' +
        '<fills count="4"><fill><patternFill/></fill><fill><patternFill patternType="gray125"/></fill>' +
        '<fill><patternFill patternType="solid"><fgColor rgb="FFFF0000"/><bgColor rgb="FFFF0000"/></patternFill></fill>' +
        '<fill><patternFill patternType="solid"><fgColor rgb="00FFFF00"/><bgColor rgb="00FFFF00"/></patternFill></fill></fills>' +
        '<borders count="2"><border><left/><right/><top/><bottom/><diagonal/></border>' +
        '<border><left style="thin"/><right style="thin"/><top style="thin"/><bottom style="thin"/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        '<cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
        '<xf numFmtId="0" fontId="1" fillId="0" borderId="1" applyAlignment="1" xfId="0"><alignment horizontal="center" vertical="top"/></xf>' +
        '<xf numFmtId="0" fontId="0" fillId="2" borderId="0" applyFill="1" xfId="0"/>' +
        '<xf numFmtId="0" fontId="0" fillId="3" borderId="0" applyFill="1" xfId="0"/></cellXfs>' +
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>',
    ],
  ];
}

/** msprobe's row limit per sheet, and how a larger table is cut (`np.array_split` into equal parts). */
export const SHEET_ROW_LIMIT = 1_048_500;

export function sheetPlan(
  rows: number,
  style: WriterStyle,
  limit = SHEET_ROW_LIMIT,
): { names: string[]; sizes: number[]; style: WriterStyle } {
  if (style === 'highlight' && rows <= limit) return { names: ['Sheet'], sizes: [rows], style };
  if (rows < limit) return { names: ['Sheet1'], sizes: [rows], style: 'default' };
  const parts = Math.ceil(rows / limit);
  const base = Math.floor(rows / parts);
  const extra = rows % parts;
  const sizes = Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0));
  return { names: sizes.map((_, i) => `part_${i}`), sizes, style: 'default' };
}
