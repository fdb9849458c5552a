import { bucketColor } from '../../core/colors/buckets.js';
import type { CellKind, HeatmapGrid } from './heatmapGrid.js';

/**
 * The heatmap's rows in view as pixels (HeatmapPanel): one canvas pixel per cell, scaled up by CSS with
 * `image-rendering: pixelated`, so a window of 160 ranks × 100 modules is one putImageData, not 16,000 rectangles or
 * DOM nodes; scrolling paints the next window.
 */

/** Cells without a value on their rank, not on their rank, of a rank not read yet, of an unreadable rank. */
export const CELL_NO_VALUE = '#d9d9d9';
export const CELL_PENDING = '#f1f1f1';
export const CELL_ERROR = '#6b6b6b';

/** The cell under a point of a canvas box (CSS pixels) showing `rows` × `columns`, or null outside it. Pure. */
export function cellAtPoint(rows: number, columns: number, box: { width: number; height: number }, x: number, y: number): { row: number; column: number } | null {
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

/** Paints rows [first, first + count) of `grid` into `canvas` (resized to modules × count pixels). */
export function paintHeatmap(canvas: HTMLCanvasElement, grid: HeatmapGrid, first: number, count: number): void {
  const columns = grid.modules.length;
  canvas.width = Math.max(1, columns);
  canvas.height = Math.max(1, count);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx || columns === 0 || count === 0) return;
  const memo = new Map<string, number[]>();
  const fixed: Record<Exclude<CellKind, 'value' | 'absent'>, number[]> = {
    noValue: rgbaOf(ctx, CELL_NO_VALUE, memo),
    pending: rgbaOf(ctx, CELL_PENDING, memo),
    error: rgbaOf(ctx, CELL_ERROR, memo),
  };
  // One colour per distinct value would be a bucket lookup per cell: buckets are few, values repeat.
  const byValue = new Map<number, number[]>();
  const image = ctx.createImageData(columns, count);
  const px = image.data;
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < columns; c++) {
      const cell = grid.cell(first + r, c);
      let rgba: number[] | undefined;
      if (cell.kind === 'value') {
        rgba = byValue.get(cell.value!);
        if (!rgba) {
          const color = bucketColor(grid.colors, cell.value!);
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
