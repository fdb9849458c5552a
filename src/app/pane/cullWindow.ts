import type { Rect } from '../../core/layout/types.js';
import { contains } from '../../core/layout/scene.js';
import { viewportRect, type Size, type View } from '../commands/viewport.js';

/**
 * Viewport culling with hysteresis: the node layer draws a window one viewport larger on every side, and the window
 * moves only when the viewport is about to leave it, so a pan re-renders nodes every few hundred pixels instead of
 * every frame (the transform group moves in between).
 */
export function nextCullWindow(current: Rect, view: View, size: Size): Rect {
  const viewport = viewportRect(view, size);
  const inner = shrink(current, Math.min(current.width, current.height) / 8);
  const zoomedIn = viewport.width * viewport.height * 16 < current.width * current.height;
  if (current.width > 0 && contains(inner, viewport) && !zoomedIn) return current;
  return {
    x: viewport.x - viewport.width,
    y: viewport.y - viewport.height,
    width: viewport.width * 3,
    height: viewport.height * 3,
  };
}

function shrink(rect: Rect, by: number): Rect {
  return { x: rect.x + by, y: rect.y + by, width: Math.max(0, rect.width - 2 * by), height: Math.max(0, rect.height - 2 * by) };
}
