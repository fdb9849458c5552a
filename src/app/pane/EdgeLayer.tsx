import { curveBasis, line } from 'd3';
import { memo, useMemo } from 'react';
import { visibleEdges, type SceneEdge } from '../../core/layout/scene.js';
import type { Point } from '../../core/layout/types.js';
import { translate } from '../i18n/i18n.js';
import { useAppStore, type Lang } from '../state/appStore.js';
import { FAR_SCALE } from './canvasPaint.js';
import { usePane, usePaneController } from './paneContext.js';

/** Edge labels (count, dtype[shape]) only where they can be read. */
const EDGE_LABEL_MIN_SCALE = 1.2;

const path = line<Point>()
  .x((p) => p.x)
  .y((p) => p.y)
  .curve(curveBasis);

/**
 * Dataflow edges of the open groups within the cull window, drawn over the nodes (a group's frame is filled, so
 * edges under it would vanish) and never catching clicks. Recorded edges are solid, control dependencies dashed,
 * inferred ones (msprobe's optional layer) dotted in their own colour; width grows with the edges bundled.
 */
export const EdgeLayer = memo(function EdgeLayer() {
  const controller = usePaneController();
  const far = usePane((s) => s.view.k < FAR_SCALE);
  const showLabels = usePane((s) => s.view.k >= EDGE_LABEL_MIN_SCALE);
  const layouts = usePane((s) => s.layouts);
  const rootId = usePane((s) => s.tree.rootId);
  const cullWindow = usePane((s) => s.cullWindow);
  const lang = useAppStore((s) => s.lang);
  const edges = useMemo(
    () => (rootId === null || far ? [] : visibleEdges(layouts, rootId, cullWindow)),
    [layouts, rootId, cullWindow, far],
  );
  if (edges.length === 0) return null;
  const marker = `pb-arrow-${controller.side}`;
  return (
    <g className="pb-edge-layer" pointerEvents="none">
      <defs>
        {/* Sized in graph units, not by stroke width: a thick bundle keeps an arrowhead of the same size. */}
        <marker id={marker} viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="4" markerHeight="4" orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" className="pb-edge-arrow" />
        </marker>
      </defs>
      {edges.map((e) => (
        <g key={`${e.groupId}\u0000${e.from}\u0000${e.to}`}>
          <path
            className={edgeClass(e)}
            d={path(e.points) ?? ''}
            strokeWidth={edgeWidth(e)}
            markerEnd={`url(#${marker})`}
            data-edge=""
            data-from={e.from}
            data-to={e.to}
            data-group={e.groupId}
            data-count={e.data + e.control}
            data-control={e.control > 0 && e.data === 0 ? '' : undefined}
            data-inferred={e.inferred ? '' : undefined}
          >
            <title>{edgeTitle(e, lang)}</title>
          </path>
          {showLabels && <EdgeLabel edge={e} />}
        </g>
      ))}
    </g>
  );
});

function EdgeLabel({ edge }: { edge: SceneEdge }) {
  const count = edge.data + edge.control;
  const text = [count > 1 ? `×${count}` : '', edge.labels[0] ?? ''].filter(Boolean).join(' ');
  if (!text) return null;
  const mid = edge.points[Math.floor(edge.points.length / 2)];
  return (
    <text className="pb-edge-label" x={mid.x + 2} y={mid.y} fontSize={4}>
      {text}
    </text>
  );
}

function edgeClass(e: SceneEdge): string {
  if (e.inferred) return 'pb-edge pb-edge--inferred';
  return e.data === 0 ? 'pb-edge pb-edge--control' : 'pb-edge';
}

/** Bundles thicken with the log of their size, so a 1,000-edge bundle stands out without covering its neighbours. */
function edgeWidth(e: SceneEdge): number {
  return Math.min(3, 0.6 + 0.4 * Math.log2(Math.max(1, e.data + e.control)));
}

function edgeTitle(e: SceneEdge, lang: Lang): string {
  const key = e.inferred ? 'edge.inferredTip' : 'edge.tip';
  const lines = [translate(lang, key, { from: e.from, to: e.to, data: e.data, control: e.control })];
  return [...lines, ...e.labels].join('\n');
}
