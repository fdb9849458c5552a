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
