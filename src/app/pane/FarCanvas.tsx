import { useEffect, useRef } from 'react';
import type { PaintContext } from '../../core/colors/nodePaint.js';
import { visibleEdges, visibleNodes, type SceneEdge, type SceneNode } from '../../core/layout/scene.js';
import type { GroupLayout, Rect } from '../../core/layout/types.js';
import { useAppStore } from '../state/appStore.js';
import { themeStore } from '../state/themeStore.js';
import { FAR_SCALE, paintFar } from './canvasPaint.js';
import { boxFill } from './paneFill.js';
import { usePaneController } from './paneContext.js';

/**
 * The far-zoom renderer: a canvas under the SVG, drawn outside React from store subscriptions, at most once per
 * animation frame. The scene is walked again only when the cull window or the layouts change; a pan frame only
 * repaints. `data-drawn` tells tests and benchmarks how many nodes the last frame held.
 */
export function FarCanvas() {
  const controller = usePaneController();
  const ref = useRef<HTMLCanvasElement | null>(null);

  useEffect(() => {
    const canvas = ref.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    const store = controller.store;
    let frame = 0;
    let cached: { layouts: ReadonlyMap<string, GroupLayout>; window: Rect; rootId: string; scene: SceneNode[]; edges: SceneEdge[] } | null = null;

    const draw = () => {
      frame = 0;
      const s = store.getState();
      const app = useAppStore.getState();
      const far = s.view.k < FAR_SCALE && s.tree.rootId !== null;
      const active = far ? 'true' : 'false';
      if (canvas.dataset.active !== active) canvas.dataset.active = active;
      if (!far) {
        if (canvas.width !== 0) canvas.width = 0;
        cached = null;
        return;
      }
      const dpr = window.devicePixelRatio || 1;
      const width = Math.round(s.size.width * dpr);
      const height = Math.round(s.size.height * dpr);
      if (canvas.width !== width || canvas.height !== height) {
        canvas.width = width;
        canvas.height = height;
      }
      const rootId = s.tree.rootId!;
      if (!cached || cached.layouts !== s.layouts || cached.window !== s.cullWindow || cached.rootId !== rootId) {
        cached = {
          layouts: s.layouts,
          window: s.cullWindow,
          rootId,
          scene: visibleNodes(s.layouts, rootId, s.cullWindow),
          edges: visibleEdges(s.layouts, rootId, s.cullWindow),
        };
      }
      const side = s.side;
      const paint: PaintContext = { side, graphType: app.meta?.graphType ?? 'build', colors: app.meta?.colors ?? [] };
      const highlighted = new Set<string>();
      const sel = app.selection;
      if (sel?.side === side) highlighted.add(sel.id);
      else if (sel?.counterpartId) highlighted.add(sel.counterpartId);
      const theme = themeStore.getState().theme;
      const drawn = paintFar(ctx, {
        scene: cached.scene,
        edges: cached.edges,
        view: s.view,
        size: s.size,
        devicePixelRatio: dpr,
        highlighted,
        fillOf: (n) => boxFill(s.tree, n.id, paint, theme),
      });
      canvas.dataset.drawn = String(drawn);
    };
    const request = () => {
      if (frame === 0) frame = requestAnimationFrame(draw);
    };
    const stopPane = store.subscribe(request);
    const stopApp = useAppStore.subscribe((a, b) => {
      if (a.meta !== b.meta || a.selection !== b.selection) request();
    });
    const stopTheme = themeStore.subscribe(request);
    request();
    return () => {
      stopPane();
      stopApp();
      stopTheme();
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [controller]);

  return <canvas ref={ref} className="pb-graph-canvas" data-testid={`canvas-${controller.side}`} aria-hidden="true" />;
}
