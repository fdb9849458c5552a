import { select, zoom, zoomIdentity, type D3ZoomEvent } from 'd3';
import { useEffect, type RefObject } from 'react';
import { SCALE_EXTENT, type Point } from '../commands/viewport.js';
import { isPointerOver, keyboardTarget, paneMounted, pointerEntered, pointerLeft } from './keyboardTarget.js';
import type { PaneController } from './paneController.js';

/** W/S zoom step and A/D / wheel-line pan step (the reference viewer's 40 px). */
export const KEY_ZOOM_FACTOR = 1.2;
export const KEY_PAN_STEP = 40;

/**
 * Binds d3-zoom and the keyboard to one pane: drag pans, Ctrl+wheel (and pinch) zooms toward the pointer, the plain
 * wheel scrolls, W/S zoom toward the pointer, A/D pan. Every change goes through the controller, which applies
 * views through this zoom behaviour so d3's own transform never drifts from the store.
 */
export function usePanZoom(svgRef: RefObject<SVGSVGElement | null>, controller: PaneController | null): void {
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg || !controller) return;
    const side = controller.side;
    let pointer: Point | null = null;

    const behavior = zoom<SVGSVGElement, unknown>()
      .scaleExtent([SCALE_EXTENT[0], SCALE_EXTENT[1]])
      // Plain wheel events scroll (below); d3 only sees Ctrl+wheel, which is also what trackpad pinches send.
      .filter((event: Event) =>
        event.type === 'wheel' ? (event as WheelEvent).ctrlKey : !(event as MouseEvent).button,
      )
      // d3's default multiplies Ctrl+wheel by 10 for pinches, which makes a mouse notch zoom 4x; 3 is a compromise.
      .wheelDelta((event: WheelEvent) => -event.deltaY * (event.deltaMode === 1 ? 0.05 : event.deltaMode ? 1 : 0.002) * 3)
      // Gestures are held to the same rule as commands: part of the graph always stays on screen.
      .constrain((transform) => {
        const kept = controller.constrain({ x: transform.x, y: transform.y, k: transform.k });
        return kept.x === transform.x && kept.y === transform.y ? transform : zoomIdentity.translate(kept.x, kept.y).scale(kept.k);
      })
      .on('zoom', (event: D3ZoomEvent<SVGSVGElement, unknown>) => {
        const { x, y, k } = event.transform;
        controller.viewChanged({ x, y, k });
      });
    const selection = select(svg);
    selection.call(behavior).on('dblclick.zoom', null);
    const { view } = controller.store.getState();
    selection.call(behavior.transform, zoomIdentity.translate(view.x, view.y).scale(view.k));
    controller.attachViewport((next) => {
      selection.call(behavior.transform, zoomIdentity.translate(next.x, next.y).scale(next.k));
    });

    const onWheel = (event: WheelEvent) => {
      if (event.ctrlKey) return;
      event.preventDefault();
      const unit = event.deltaMode === 1 ? KEY_PAN_STEP : event.deltaMode === 2 ? svg.clientHeight : 1;
      // Shift+wheel scrolls sideways on mice that have no horizontal wheel.
      const dx = event.shiftKey && event.deltaX === 0 ? event.deltaY : event.deltaX;
      const dy = event.shiftKey && event.deltaX === 0 ? 0 : event.deltaY;
      controller.panBy(-dx * unit, -dy * unit);
    };
    const onPointerMove = (event: PointerEvent) => {
      const rect = svg.getBoundingClientRect();
      pointer = { x: event.clientX - rect.left, y: event.clientY - rect.top };
      if (!isPointerOver(side)) pointerEntered(side);
    };
    const onPointerEnter = () => pointerEntered(side);
    const onPointerLeave = () => {
      pointerLeft(side);
      pointer = null;
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      if (keyboardTarget() !== side) return;
      const anchor = pointer ?? undefined;
      switch (event.key.toLowerCase()) {
        case 'w':
          controller.zoomBy(KEY_ZOOM_FACTOR, anchor);
          break;
        case 's':
          controller.zoomBy(1 / KEY_ZOOM_FACTOR, anchor);
          break;
        case 'a':
          controller.panBy(KEY_PAN_STEP, 0);
          break;
        case 'd':
          controller.panBy(-KEY_PAN_STEP, 0);
          break;
        default:
          return;
      }
      event.preventDefault();
    };

    const unregister = paneMounted(side);
    svg.addEventListener('wheel', onWheel, { passive: false });
    svg.addEventListener('pointermove', onPointerMove);
    svg.addEventListener('pointerenter', onPointerEnter);
    svg.addEventListener('pointerleave', onPointerLeave);
    window.addEventListener('keydown', onKeyDown);
    return () => {
      unregister();
      controller.attachViewport(null);
      selection.on('.zoom', null);
      svg.removeEventListener('wheel', onWheel);
      svg.removeEventListener('pointermove', onPointerMove);
      svg.removeEventListener('pointerenter', onPointerEnter);
      svg.removeEventListener('pointerleave', onPointerLeave);
      window.removeEventListener('keydown', onKeyDown);
    };
  }, [svgRef, controller]);
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
