import { useRef, type PointerEvent } from 'react';

type Handler = (e: PointerEvent<HTMLElement>) => void;

/**
 * Pointer handlers for a drag handle, to spread onto it. `begin` runs on press and returns what the drag measures
 * from; `move` runs on every move until release. The pointer is captured so a drag goes on when it slips off the
 * few-pixel handle.
 */
export function usePointerDrag<S>(
  begin: (e: PointerEvent<HTMLElement>) => S,
  move: (e: PointerEvent<HTMLElement>, start: S) => void,
): { onPointerDown: Handler; onPointerMove: Handler; onPointerUp: Handler; onPointerCancel: Handler } {
  // Boxed so that a start value of null or undefined still means "dragging".
  const start = useRef<{ value: S } | null>(null);
  const end: Handler = (e) => {
    start.current = null;
    e.currentTarget.releasePointerCapture(e.pointerId);
  };
  return {
    onPointerDown: (e) => {
      start.current = { value: begin(e) };
      e.currentTarget.setPointerCapture(e.pointerId);
      e.preventDefault();
    },
    onPointerMove: (e) => {
      if (start.current) move(e, start.current.value);
    },
    onPointerUp: end,
    onPointerCancel: end,
  };
}
