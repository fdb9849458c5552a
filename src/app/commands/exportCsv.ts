import type { FoundNode, NodeDetail, Side } from '../../core/api/types.js';
import type { Translate } from '../i18n/i18n.js';
import { buildIoTable, cellText, type IoTable } from '../panels/ioRows.js';
import { nodeTypeKey } from './worstNodes.js';

/**
 * CSV text of the info table and of the sidebar lists, and the names of downloaded files. Pure: the panels hand in
 * what they show and the labels in the UI language, and download the result through a Blob link.
 */

/** Excel reads a CSV as the system code page unless it starts with a UTF-8 byte order mark (Chinese names, labels). */
export const UTF8_BOM = '\uFEFF';

/**
 * RFC 4180: a field holding a comma, a quote or a line break is quoted, quotes inside doubled. A field a spreadsheet
 * would run as a formula (=, +, -, @, tab or CR first; node names and tensor paths come from the dump) gets a leading
 * apostrophe, except plain numbers such as -0.5 or +inf that must stay numbers.
 */
export function csvField(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) && !NUMBER.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const NUMBER = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|inf(?:inity)?|nan)%?$/i;

/** Rows to a CSV document: CRLF line ends (RFC 4180), a header row first, with the BOM. */
export function toCsv(rows: readonly (readonly string[])[]): string {
  return UTF8_BOM + rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export interface IoCsvLabels {
  side: string;
  name: string;
  npu: string;
  bench: string;
}

/**
 * The info table as shown: Side (compare files), Name, then every column, one row per NPU and Bench item in the
 * table's order, cells in the table's text (so the file reads back as the table).
 */
export function ioTableCsv(table: IoTable, compare: boolean, labels: IoCsvLabels): string {
  const header = [...(compare ? [labels.side] : []), labels.name, ...table.columns];
  const rows = table.rows.map((row) => [
    ...(compare ? [row.side === 'npu' ? labels.npu : labels.bench] : []),
    row.name,
    ...table.columns.map((col) => cellText(row.item[col])),
  ]);
  return toCsv([header, ...rows]);
}

export interface FoundCsvLabels {
  node: string;
  precision: string;
  type: string;
  path: string;
  /** The node type in words (the worst-nodes table's Type column). */
  typeName: (nodeType: number) => string;
}

/**
 * A list of found nodes (search or filter hits, a page of worst nodes) in the list's order: id, the full precision
 * value (the list rounds it), the type and the ancestors joined by ` > `.
 */
export function foundCsv(nodes: readonly FoundNode[], labels: FoundCsvLabels): string {
  const rows = nodes.map((n) => [n.id, n.precisionIndex === null ? '' : String(n.precisionIndex), labels.typeName(n.nodeType), n.path.join(' > ')]);
  return toCsv([[labels.node, labels.precision, labels.type, labels.path], ...rows]);
}

/**
 * A file name from its parts (run, tag, side, node…): characters that are unsafe in file names on any system, control
 * characters and whitespace runs become `_`, dots at the start are dropped, empty parts skipped, long names cut.
 */
export function exportFileName(parts: readonly (string | null | undefined)[], ext: string): string {
  const cleaned = parts
    .map((p) => (p ?? '').replace(/[\\/:*?"<>|\u0000-\u001f\u007f\s]+/g, '_').replace(/^[._]+|_+$/g, ''))
    .filter((p) => p !== '' && p !== '.');
  const stem = Array.from(cleaned.join('-') || 'probeboard').slice(0, 120).join('');
  return `${stem}.${ext}`;
}

/** Which file a download comes from, for its name. */
export interface FileNames {
  run: string | null;
  tag: string | null;
}

export interface CsvFile {
  csv: string;
  fileName: string;
}

/** The selected node's comparison table, labelled in the UI language, named `run-tag-node.csv`. */
export function ioCsvFile(npu: NodeDetail | null, bench: NodeDetail | null, compare: boolean, t: Translate, names: FileNames): CsvFile {
  const labels = { side: t('info.col.side'), name: t('info.col.name'), npu: t('info.side.npu'), bench: t('info.side.bench') };
  const csv = ioTableCsv(buildIoTable(npu, bench, compare), compare, labels);
  return { csv, fileName: exportFileName([names.run, names.tag, (npu ?? bench)?.id], 'csv') };
}

/** A list of found nodes of one side, named `run-tag-side-list.csv` (`list` = search, filter, worst…). */
export function foundCsvFile(nodes: readonly FoundNode[], side: Side, list: string, t: Translate, names: FileNames): CsvFile {
  const csv = foundCsv(nodes, {
    node: t('csv.colNode'),
    precision: t('info.precision'),
    type: t('worst.colType'),
    path: t('csv.colPath'),
    typeName: (type) => t(nodeTypeKey(type), { type }),
  });
  return { csv, fileName: exportFileName([names.run, names.tag, side, list], 'csv') };
}
