import type { ColorBucket } from '../../core/api/types.js';
import { bucketColor } from '../../core/colors/buckets.js';

/** Pure helpers of the worst-nodes table (WorstNodesPanel): row text, swatches and paging. */

export const WORST_PAGE_SIZE = 100;

/** `Cell.network…forward.0`: the start and the end of a long name survive, the middle gives way. */
export function middleEllipsis(name: string, max = 48): string {
  const chars = Array.from(name);
  if (chars.length <= max) return name;
  const keep = Math.max(2, max - 1);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - tail).join('')}`;
}

/** A precision value as the table shows it: integers as they are, others with 4 significant digits. */
export function formatPrecision(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '';
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(4)));
}

/** The swatch colour: the file's bucket for the value, or null (no bucket holds it). */
export function precisionSwatch(colors: readonly ColorBucket[], v: number | null): string | null {
  return v === null ? null : bucketColor(colors, v);
}

export type NodeTypeKey = 'worst.type.module' | 'worst.type.api' | 'worst.type.fusion' | 'worst.type.apiList' | 'worst.type.other';

/** msprobe node_type: 0 module, 1 api, 8 fusion collection, 9 api collection. */
export function nodeTypeKey(nodeType: number): NodeTypeKey {
  switch (nodeType) {
    case 0:
      return 'worst.type.module';
    case 1:
      return 'worst.type.api';
    case 8:
      return 'worst.type.fusion';
    case 9:
      return 'worst.type.apiList';
    default:
      return 'worst.type.other';
  }
}

/** Page bounds for `offset` of `total`: 1-based first/last row shown, and whether there is a page before / after. */
export function pageInfo(offset: number, shown: number, total: number): { first: number; last: number; prev: boolean; next: boolean } {
  return { first: shown > 0 ? offset + 1 : 0, last: offset + shown, prev: offset > 0, next: offset + shown < total };
}

/** The offset of the neighbouring page, kept within [0, last page]. */
export function turnPage(offset: number, delta: -1 | 1, total: number, size = WORST_PAGE_SIZE): number {
  const lastPage = Math.max(0, Math.ceil(total / size) - 1) * size;
  return Math.min(lastPage, Math.max(0, offset + delta * size));
}
