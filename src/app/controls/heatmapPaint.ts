import type { HeatmapResponse } from '../../core/api/types.js';
import { bucketColor } from '../../core/colors/buckets.js';

/**
 * The heatmap as pixels (HeatmapPanel): one canvas pixel per cell, scaled up by CSS with `image-rendering: pixelated`,
 * so 1,000 ranks × 100 modules are one putImageData, not 100,000 rectangles or DOM nodes.
 */

/** Cells without a value on their rank, not on their rank, of a rank not read yet, of an unreadable rank. */
export const CELL_NO_VALUE = '#d9d9d9';
export const CELL_PENDING = '#f1f1f1';
export const CELL_ERROR = '#6b6b6b';

export type CellKind = 'value' | 'noValue' | 'absent' | 'pending' | 'error';

export interface CellInfo {
  row: number;
  column: number;
  kind: CellKind;
  value: number | null;
}

/** What one cell shows. Pure. */
export function cellInfo(h: HeatmapResponse, absent: ReadonlySet<number>, row: number, column: number): CellInfo {
  const state = h.rows[row].state;
  const k = row * h.modules.length + column;
  const value = h.values[k];
  let kind: CellKind;
  if (state === 'pending') kind = 'pending';
  else if (state === 'error') kind = 'error';
  else if (absent.has(k)) kind = 'absent';
  else kind = value === null ? 'noValue' : 'value';
  return { row, column, kind, value };
}

/** The cell under a point of the canvas box (CSS pixels), or null outside the grid. Pure. */
export function cellAtPoint(h: HeatmapResponse, box: { width: number; height: number }, x: number, y: number): { row: number; column: number } | null {
  const columns = h.modules.length;
  const rows = h.rows.length;
  if (columns === 0 || rows === 0 || x < 0 || y < 0 || x >= box.width || y >= box.height) return null;
  return { row: Math.min(rows - 1, Math.floor((y * rows) / box.height)), column: Math.min(columns - 1, Math.floor((x * columns) / box.width)) };
}

/** CSS colour → RGBA bytes, through the canvas's own parser (any colour a file may name). */
function rgbaOf(ctx: CanvasRenderingContext2D, color: string, memo: Map<string, number[]>): number[] {
  let rgba = memo.get(color);
  if (!rgba) {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = color;
    ctx.fillRect(0, 0, 1, 1);
    rgba = Array.from(ctx.getImageData(0, 0, 1, 1).data);
    memo.set(color, rgba);
  }
  return rgba;
}

/** Paints the whole grid into `canvas` (resized to modules × ranks pixels). */
export function paintHeatmap(canvas: HTMLCanvasElement, h: HeatmapResponse): void {
  const columns = h.modules.length;
  const rows = h.rows.length;
  canvas.width = Math.max(1, columns);
  canvas.height = Math.max(1, rows);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx || columns === 0) return;
  const memo = new Map<string, number[]>();
  const fixed: Record<Exclude<CellKind, 'value' | 'absent'>, number[]> = {
    noValue: rgbaOf(ctx, CELL_NO_VALUE, memo),
    pending: rgbaOf(ctx, CELL_PENDING, memo),
    error: rgbaOf(ctx, CELL_ERROR, memo),
  };
  // One colour per distinct value would be 100,000 bucket lookups: buckets are few, values repeat.
  const byValue = new Map<number, number[]>();
  const image = ctx.createImageData(columns, rows);
  const px = image.data;
  const absent = new Set(h.absent);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      const cell = cellInfo(h, absent, r, c);
      let rgba: number[] | undefined;
      if (cell.kind === 'value') {
        rgba = byValue.get(cell.value!);
        if (!rgba) {
          const color = bucketColor(h.colors, cell.value!);
          rgba = color ? rgbaOf(ctx, color, memo) : fixed.noValue;
          byValue.set(cell.value!, rgba);
        }
      } else if (cell.kind !== 'absent') rgba = fixed[cell.kind];
      if (!rgba) continue;
      const o = (r * columns + c) * 4;
      px[o] = rgba[0];
      px[o + 1] = rgba[1];
      px[o + 2] = rgba[2];
      px[o + 3] = rgba[3];
    }
  }
  ctx.putImageData(image, 0, 0);
}
