import type { IoItem, NodeDetail, Side } from '../../core/api/types.js';

/**
 * The comparison table's rows and columns, as tb_graph_ascend lays them out (reference-viewer.md §3.6): NPU and Bench
 * items paired by position within inputs and within outputs, matched pairs first (NPU row, then its Bench row), then
 * the NPU items without a partner, then the Bench items without one. Pure, so the ordering is unit-tested.
 */
export interface IoRow {
  side: Side;
  kind: 'input' | 'output';
  /** The item key without the `"{node id}."` prefix, e.g. `input.0`, `parameters.weight`. */
  name: string;
  /** The item key as in the file (with the node id prefix). */
  key: string;
  /** Whether the row has a partner on the other side; null for single-graph (build) files. */
  matched: boolean | null;
  item: IoItem;
  /** Columns msprobe flagged on this item (`error_key`, JSON eras before 2024-11-21). */
  flagged: ReadonlySet<string>;
}

export interface IoTable {
  /** Every item key present, in first-appearance order (NPU first), minus internal bookkeeping keys. */
  columns: string[];
  rows: IoRow[];
}

/** Bookkeeping keys that explain nothing to a reader: the tensor file name and the highlight list itself. */
const HIDDEN_COLUMNS = new Set(['data_name', 'error_key', 'isBench', 'isMatched']);

export function stripNodePrefix(key: string, nodeId: string): string {
  const prefix = `${nodeId}.`;
  return key.startsWith(prefix) && key.length > prefix.length ? key.slice(prefix.length) : key;
}

function itemsOf(detail: NodeDetail | null, kind: 'input' | 'output'): Array<[string, IoItem]> {
  if (!detail) return [];
  return Object.entries(kind === 'input' ? detail.inputData : detail.outputData);
}

function rowOf(detail: NodeDetail, side: Side, kind: 'input' | 'output', entry: [string, IoItem], matched: boolean | null): IoRow {
  const [key, item] = entry;
  const flags = Array.isArray(item.error_key) ? item.error_key.filter((c): c is string => typeof c === 'string') : [];
  return { side, kind, name: stripNodePrefix(key, detail.id), key, matched, item, flagged: new Set(flags) };
}

export function buildIoTable(npu: NodeDetail | null, bench: NodeDetail | null, compare: boolean): IoTable {
  const pairs: IoRow[] = [];
  const lonelyNpu: IoRow[] = [];
  const lonelyBench: IoRow[] = [];
  for (const kind of ['input', 'output'] as const) {
    const n = itemsOf(npu, kind);
    const b = itemsOf(bench, kind);
    const paired = compare && npu && bench ? Math.min(n.length, b.length) : 0;
    const leftover = compare ? false : null;
    for (let i = 0; i < paired; i++) pairs.push(rowOf(npu!, 'npu', kind, n[i], true), rowOf(bench!, 'bench', kind, b[i], true));
    for (let i = paired; i < n.length; i++) lonelyNpu.push(rowOf(npu!, 'npu', kind, n[i], leftover));
    for (let i = paired; i < b.length; i++) lonelyBench.push(rowOf(bench!, 'bench', kind, b[i], leftover));
  }
  const rows = [...pairs, ...lonelyNpu, ...lonelyBench];
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows)
    for (const key of Object.keys(row.item))
      if (!seen.has(key) && !HIDDEN_COLUMNS.has(key)) {
        seen.add(key);
        columns.push(key);
      }
  return { columns, rows };
}

/** Item values are strings in every msprobe era; anything else (older hand-made files) is shown as JSON. */
export function cellText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value);
}

/** A number as msprobe writes one: `1.5`, `-3e-05`, `0.0%`, `nan`, `inf`, `-inf`. */
const NUMBER_TEXT = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?%?|nan|inf(?:inity)?)$/i;
/** Placeholders msprobe puts in numeric columns; they neither make a column textual nor numeric. */
const PLACEHOLDERS = new Set(['', 'N/A', 'n/a', '-', 'None', 'null', 'unsupported', 'Nan']);

export function isNumberText(text: string): boolean {
  return NUMBER_TEXT.test(text.trim());
}

/**
 * The columns whose cells are numbers (right-aligned, tabular digits): every value that is not a placeholder reads as a
 * number, and at least one does. Shapes (`[1, 2]`), dtypes and the like stay text.
 */
export function numericColumns(table: IoTable): Set<string> {
  const numeric = new Set<string>();
  for (const col of table.columns) {
    let any = false;
    let all = true;
    for (const row of table.rows) {
      const text = cellText(row.item[col]).trim();
      if (PLACEHOLDERS.has(text)) continue;
      if (isNumberText(text)) any = true;
      else {
        all = false;
        break;
      }
    }
    if (any && all) numeric.add(col);
  }
  return numeric;
}

/** Column widths in CSS px by column key (`#side`, `#name` for the two fixed columns); absent = automatic. */
export type ColumnWidths = Readonly<Record<string, number>>;

export const MIN_COLUMN_WIDTH = 32;

/**
 * The widths after dragging `column`'s right edge by `dx` px from a drag that began with the table's columns at
 * `start` (every column measured, so the other columns keep their width while the table switches to fixed layout).
 * The dragged column never goes below MIN_COLUMN_WIDTH.
 */
export function resizeColumn(start: ColumnWidths, column: string, dx: number, min = MIN_COLUMN_WIDTH): Record<string, number> {
  const from = start[column];
  if (from === undefined || !Number.isFinite(dx)) return { ...start };
  return { ...start, [column]: Math.max(min, Math.round(from + dx)) };
}
