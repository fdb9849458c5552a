import { useEffect, useMemo, useRef, type PointerEvent } from 'react';
import { useStore } from 'zustand';
import type { PaintContext } from '../../core/colors/nodePaint.js';
import { sceneBounds, visibleNodes } from '../../core/layout/scene.js';
import { centreOn, overviewFrame, type View } from '../commands/viewport.js';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { themeStore } from '../state/themeStore.js';
import { paintFar } from './canvasPaint.js';
import { usePane, usePaneController } from './paneContext.js';
import { boxFill } from './paneFill.js';

/** At most this big; a tall graph gets a narrow, tall map (never taller than a third of the pane). */
const MAP_WIDTH = 160;
const MAP_HEIGHT = 200;
/** The map is repainted at most this often while a big graph loads or lays out; the viewport box moves every frame. */
const REPAINT_MS = 200;

/**
 * The overview in the pane's corner (issue 14 item 7; reference-viewer.md §3.3 "Minimap", drawn from the layout
 * rather than a serialised SVG): every laid-out box in its bucket colour, painted by the far-zoom painter in a few
 * batched fills, and the viewport as a box on top that moves without repainting. Click or drag pans the pane.
 */
export function Minimap() {
  const controller = usePaneController();
  const t = useT();
  const side = controller.side;
  const layouts = usePane((s) => s.layouts);
  const rootId = usePane((s) => s.tree.rootId);
  const view = usePane((s) => s.view);
  const size = usePane((s) => s.size);
  const bounds = useMemo(() => (rootId === null ? null : sceneBounds(layouts, rootId)), [layouts, rootId]);
  const frame = useMemo(
    () => (bounds ? overviewFrame(bounds, { width: MAP_WIDTH, height: Math.min(MAP_HEIGHT, Math.max(60, size.height / 3)) }) : null),
    [bounds, size.height],
  );
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  useMapPaint(canvasRef, frame);

  if (!frame || !bounds) return null;
  const toGraph = (event: PointerEvent<HTMLDivElement>) => {
    const rect = event.currentTarget.getBoundingClientRect();
    return { x: (event.clientX - rect.left - frame.x) / frame.k, y: (event.clientY - rect.top - frame.y) / frame.k };
  };
  const pan = (event: PointerEvent<HTMLDivElement>) => {
    const state = controller.store.getState();
    controller.setView(centreOn(state.view, toGraph(event), state.size));
  };
  const box = viewBox(view, size, frame);
  return (
    <div
      className="pb-minimap"
      data-testid={`minimap-${side}`}
      role="img"
      aria-label={t('pane.minimapLabel')}
      title={t('pane.minimapLabel')}
      style={{ width: frame.width, height: frame.height }}
      onPointerDown={(event) => {
        event.currentTarget.setPointerCapture(event.pointerId);
        pan(event);
      }}
      onPointerMove={(event) => {
        if (event.currentTarget.hasPointerCapture(event.pointerId)) pan(event);
      }}
    >
      <canvas ref={canvasRef} className="pb-minimap-canvas" />
      <div
        className="pb-minimap-view"
        data-testid={`minimap-view-${side}`}
        style={{ left: box.x, top: box.y, width: box.width, height: box.height }}
      />
    </div>
  );
}

/** The viewport in map pixels, clipped to the map so a box larger than the graph still shows its edges. */
function viewBox(view: View, size: { width: number; height: number }, frame: View & { width: number; height: number }) {
  const x0 = Math.max(0, ((-view.x / view.k) * frame.k) + frame.x);
  const y0 = Math.max(0, ((-view.y / view.k) * frame.k) + frame.y);
  const x1 = Math.min(frame.width, (((size.width - view.x) / view.k) * frame.k) + frame.x);
  const y1 = Math.min(frame.height, (((size.height - view.y) / view.k) * frame.k) + frame.y);
  return { x: x0, y: y0, width: Math.max(2, x1 - x0), height: Math.max(2, y1 - y0) };
}

/** Paints the boxes when the layout, the colours or the theme change, throttled, outside React's render. */
function useMapPaint(canvasRef: { current: HTMLCanvasElement | null }, frame: (View & { width: number; height: number }) | null): void {
  const controller = usePaneController();
  const nodes = usePane((s) => s.tree.nodes);
  const meta = useAppStore((s) => s.meta);
  const theme = useStore(themeStore, (s) => s.theme);
  const lastPaint = useRef(0);
  useEffect(() => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx || !frame) return;
    const paint = () => {
      lastPaint.current = performance.now();
      const { layouts, tree, side } = controller.store.getState();
      if (tree.rootId === null) return;
      const dpr = window.devicePixelRatio || 1;
      canvas.width = Math.round(frame.width * dpr);
      canvas.height = Math.round(frame.height * dpr);
      const context: PaintContext = { side, graphType: meta?.graphType ?? 'build', colors: meta?.colors ?? [] };
      const drawn = paintFar(ctx, {
        scene: visibleNodes(layouts, tree.rootId),
        // The map shows where boxes are; edges at its scale would only grey it.
        edges: [],
        view: { k: frame.k, x: frame.x, y: frame.y },
        size: frame,
        devicePixelRatio: dpr,
        highlighted: new Set(),
        fillOf: (n) => boxFill(tree, n.id, context, theme),
      });
      canvas.dataset.drawn = String(drawn);
    };
    const wait = Math.max(0, lastPaint.current + REPAINT_MS - performance.now());
    const timer = window.setTimeout(paint, wait);
    return () => window.clearTimeout(timer);
  }, [canvasRef, controller, frame, nodes, meta, theme]);
}
