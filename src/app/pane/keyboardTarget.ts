import type { Side } from '../../core/api/types.js';

/**
 * Which pane W/S/A/D drive: the one under the pointer, else the one the pointer was over last, else the first
 * mounted one. Module state, because the two panes must agree and the key listener is global.
 */
const mounted: Side[] = [];
let hovered: Side | null = null;
let lastHovered: Side | null = null;

export function paneMounted(side: Side): () => void {
  mounted.push(side);
  return () => {
    const i = mounted.lastIndexOf(side);
    if (i >= 0) mounted.splice(i, 1);
    if (hovered === side) hovered = null;
    if (lastHovered === side) lastHovered = null;
  };
}

export function pointerEntered(side: Side): void {
  hovered = side;
  lastHovered = side;
}

export function pointerLeft(side: Side): void {
  if (hovered === side) hovered = null;
}

export function isPointerOver(side: Side): boolean {
  return hovered === side;
}

export function keyboardTarget(): Side | null {
  return hovered ?? lastHovered ?? mounted[0] ?? null;
}
