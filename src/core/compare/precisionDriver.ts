import type { ColorBucket, IoItem, NodeDetail, Task } from '../api/types.js';
import { bucketColor } from '../colors/buckets.js';
import { pyParseFloat } from './pyNumber.js';

/**
 * Which table cells drive a node's `precision_index` (msprobe-format.md §3.8), so the info panel can mark them and
 * say why the node has its colour, and the server can tell where a divergence starts (divergence.ts). Pure: the rule is
 * unit-tested without a DOM.
 *
 * - summary: max over the OUTPUT items of the four relative errors (`str2float`: strip `%`, ÷ 100; unparsable → 0,
 *   NaN never wins), 1 when an output's Max or Min is NaN/±inf; clipped to 1.
 * - real tensors (`all`): min One Thousandth ratio over inputs − the same over outputs, clipped to [0, 1]; an output
 *   with NaN/inf Max/Min → 1; an input with NaN/inf → 0.
 * - md5: 0 when any input or output has `Result` other than `pass`, else 1.
 * - API collections take the max (md5: min) of their APIs; `empty*` creators are forced to 0 (md5: 1).
 */
export type DriverRule =
  | 'summaryMax'
  | 'summaryNonFinite'
  | 'realDrop'
  | 'realNonFiniteOut'
  | 'realNonFiniteIn'
  | 'md5Diff'
  | 'md5Pass'
  | 'collection'
  | 'ignoredOp'
  | 'none';

export interface DriverCell {
  kind: 'input' | 'output';
  /** The item key as in the file (`inputData` / `outputData` key). */
  key: string;
  column: string;
}

export interface PrecisionDriver {
  rule: DriverRule;
  /** Cells that decide the value (NPU side), most important first. */
  cells: DriverCell[];
  /** The index the rule gives from the table; null where the table cannot tell (collections, no rows). */
  computed: number | null;
  /** False when the file's value is not what the table gives (older msprobe eras, hand-edited files). */
  agrees: boolean;
}

export const RELATIVE_COLUMNS = ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr'] as const;
const AGREE_TOLERANCE = 1e-4;
export const THOUSANDTH = 'One Thousandth Err Ratio';
const IGNORED_OPS = new Set(['empty', 'empty_like', 'empty_with_format', 'new_empty_strided', 'new_empty', 'empty_strided']);

/** msprobe `str2float` on a cell: strip `%`, parse like Python float, ÷ 100; anything unparsable → 0. */
export function cellFraction(cell: unknown): number {
  if (typeof cell !== 'string') return 0;
  const parsed = pyParseFloat(cell.replace(/^%+|%+$/g, ''));
  return parsed === null ? 0 : parsed / 100;
}

/** A raw statistic that is NaN or ±inf (numbers, or the strings msprobe writes for them). */
export function isNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'string') return false;
  const parsed = pyParseFloat(value);
  return parsed !== null && !Number.isFinite(parsed);
}

export function hasStat(item: IoItem): boolean {
  return item.Max !== null && item.Max !== undefined;
}

function nonFiniteCell(kind: 'input' | 'output', key: string, item: IoItem): DriverCell | null {
  if (isNonFinite(item.Max)) return { kind, key, column: 'Max' };
  if (isNonFinite(item.Min)) return { kind, key, column: 'Min' };
  return null;
}

function summary(detail: NodeDetail): Omit<PrecisionDriver, 'agrees'> {
  let best = 0;
  let bestCell: DriverCell | null = null;
  for (const [key, item] of Object.entries(detail.outputData)) {
    if (!hasStat(item)) continue;
    const bad = nonFiniteCell('output', key, item);
    if (bad) return { rule: 'summaryNonFinite', cells: [bad], computed: 1 };
    for (const column of RELATIVE_COLUMNS) {
      if (!(column in item)) continue;
      const v = cellFraction(item[column]);
      // NaN never wins a Python max(); the first of equal values is kept.
      if (v > best) {
        best = v;
        bestCell = { kind: 'output', key, column };
      }
    }
  }
  return { rule: bestCell ? 'summaryMax' : 'none', cells: bestCell ? [bestCell] : [], computed: Math.min(best, 1) };
}

function minThousandth(kind: 'input' | 'output', data: Record<string, IoItem>): { min: number | null; cell: DriverCell | null; bad: DriverCell | null } {
  let min: number | null = null;
  let cell: DriverCell | null = null;
  for (const [key, item] of Object.entries(data)) {
    if (!hasStat(item)) continue;
    const bad = nonFiniteCell(kind, key, item);
    if (bad) return { min: null, cell: null, bad };
    const shape = item.shape;
    if (!shape || (Array.isArray(shape) && shape.length === 0)) continue;
    const raw = item[THOUSANDTH];
    const ratio = typeof raw === 'number' ? raw : typeof raw === 'string' ? pyParseFloat(raw) : null;
    if (ratio === null || Number.isNaN(ratio)) continue;
    if (min === null || ratio < min) {
      min = ratio;
      cell = { kind, key, column: THOUSANDTH };
    }
  }
  return { min: min === null ? null : Math.min(min, 1), cell, bad: null };
}

function real(detail: NodeDetail): Omit<PrecisionDriver, 'agrees'> {
  const out = minThousandth('output', detail.outputData);
  if (out.bad) return { rule: 'realNonFiniteOut', cells: [out.bad], computed: 1 };
  const inp = minThousandth('input', detail.inputData);
  if (inp.bad) return { rule: 'realNonFiniteIn', cells: [inp.bad], computed: 0 };
  if (inp.min === null || out.min === null) return { rule: 'none', cells: [], computed: 0 };
  const computed = Math.min(1, Math.max(0, inp.min - out.min));
  return { rule: 'realDrop', cells: [out.cell!, inp.cell!], computed };
}

function md5(detail: NodeDetail): Omit<PrecisionDriver, 'agrees'> {
  const cells: DriverCell[] = [];
  for (const kind of ['input', 'output'] as const)
    for (const [key, item] of Object.entries(kind === 'input' ? detail.inputData : detail.outputData))
      if ('Result' in item && item.Result !== 'pass') cells.push({ kind, key, column: 'Result' });
  return cells.length > 0 ? { rule: 'md5Diff', cells, computed: 0 } : { rule: 'md5Pass', cells: [], computed: 1 };
}

function isIgnoredOp(id: string): boolean {
  const start = id.indexOf('.') + 1;
  if (start === 0) return false;
  const end = id.indexOf('.', start);
  return IGNORED_OPS.has(end < 0 ? id.slice(start) : id.slice(start, end));
}

export function precisionDriver(detail: NodeDetail, task: Task): PrecisionDriver {
  let found: Omit<PrecisionDriver, 'agrees'>;
  if (detail.nodeType === 9 || detail.id.startsWith('Apis_Between_Modules')) found = { rule: 'collection', cells: [], computed: null };
  else if (isIgnoredOp(detail.id)) found = { rule: 'ignoredOp', cells: [], computed: task === 'md5' ? 1 : 0 };
  else if (task === 'md5') found = md5(detail);
  else if (task === 'all') found = real(detail);
  else if (task === 'summary') found = summary(detail);
  else found = { rule: 'none', cells: [], computed: null };
  const file = detail.precisionIndex;
  // Cells are rounded (6 decimals of a percentage), the file keeps the full float: compare to display precision.
  const agrees = found.computed === null || file === null || Math.abs(found.computed - file) <= AGREE_TOLERANCE;
  return { ...found, agrees };
}

/** The file's bucket holding `value` (same rule as the node colours), or null. */
export function bucketOf(colors: readonly ColorBucket[], value: number): ColorBucket | null {
  const color = bucketColor(colors, value);
  return color === null ? null : (colors.find((b) => b.color === color && Array.isArray(b.value) && b.value.length === 2) ?? null);
}
