import { memo, useCallback, useMemo, type MouseEvent } from 'react';
import type { GraphMeta, NodeSummary, Side } from '../../core/api/types.js';
import { nodeFill, nodeStroke, type PaintContext } from '../../core/colors/nodePaint.js';
import { nodeLabel } from '../../core/layout/nodeLabel.js';
import { visibleNodes } from '../../core/layout/scene.js';
import { NodeOp } from '../../core/model/graph.js';
import { ancestorsOf } from '../commands/treeState.js';
import { useAppStore, type Selection } from '../state/appStore.js';
import { DASH_API_COLLECTION, DASH_FUSION, NodeShape } from './NodeShape.js';
import { usePane, usePaneController } from './paneContext.js';

/**
 * The drawn nodes: the committed layouts walked within the cull window, in pre-order (frames under their children),
 * as a flat keyed list. Clicks are delegated here, so nodes carry no handlers of their own.
 */
export const NodeLayer = memo(function NodeLayer() {
  const controller = usePaneController();
  const side = controller.side;
  const layouts = usePane((s) => s.layouts);
  const rootId = usePane((s) => s.tree.rootId);
  const nodes = usePane((s) => s.tree.nodes);
  const loading = usePane((s) => s.tree.loading);
  const pending = usePane((s) => s.tree.pending);
  const failed = usePane((s) => s.tree.failed);
  const cullWindow = usePane((s) => s.cullWindow);
  const meta = useAppStore((s) => s.meta);
  const selection = useAppStore((s) => s.selection);

  const scene = useMemo(
    () => (rootId === null ? [] : visibleNodes(layouts, rootId, cullWindow)),
    [layouts, rootId, cullWindow],
  );
  const paint = useMemo<PaintContext>(
    () => ({ side, graphType: meta?.graphType ?? 'build', colors: meta?.colors ?? [] }),
    [side, meta],
  );

  const onClick = useCallback(
    (event: MouseEvent<SVGGElement>) => {
      const id = nodeIdOf(event);
      if (id !== null) useAppStore.getState().select(selectionFor(controller.store.getState().tree, side, id, meta));
    },
    [controller, side, meta],
  );
  const onDoubleClick = useCallback(
    (event: MouseEvent<SVGGElement>) => {
      const id = nodeIdOf(event);
      if (id === null) return;
      event.preventDefault();
      controller.toggle(id);
    },
    [controller],
  );

  return (
    <g className="pb-node-layer" onClick={onClick} onDoubleClick={onDoubleClick}>
      {scene.map((n) => {
        const summary = nodes.get(n.id) ?? rootSummary(n.id);
        const fill = nodeFill(summary, paint);
        const selected = selection !== null && selection.side === side && selection.id === n.id;
        const counterpart = selection !== null && selection.side !== side && selection.counterpartId === n.id;
        const stroke = nodeStroke(fill, side, selected || counterpart);
        return (
          <NodeShape
            key={n.id}
            id={n.id}
            side={side}
            x={n.x}
            y={n.y}
            width={n.width}
            height={n.height}
            shape={n.shape}
            container={n.container}
            label={nodeLabel(n.id, summary.nodeType, n.depth)}
            fill={fill}
            stroke={stroke.color}
            strokeWidth={stroke.width}
            dash={dashOf(summary.nodeType)}
            selected={selected}
            counterpart={counterpart}
            loading={loading.has(n.id) || (pending.has(n.id) && !n.container)}
            failure={failed.get(n.id)}
          />
        );
      })}
    </g>
  );
});

function nodeIdOf(event: MouseEvent<SVGGElement>): string | null {
  const target = event.target as Element | null;
  return target?.closest?.('[data-node-id]')?.getAttribute('data-node-id') ?? null;
}

function dashOf(nodeType: number): string | undefined {
  if (nodeType === NodeOp.apiCollection) return DASH_API_COLLECTION;
  if (nodeType === NodeOp.multiCollection) return DASH_FUSION;
  return undefined;
}

/** The root is never in a children list, so the pane has no summary for it; it is a matched module. */
function rootSummary(id: string): NodeSummary {
  return { id, nodeType: NodeOp.module, precisionIndex: null, overflowLevel: null, matchedNodeLink: [id], childCount: 1, microStepId: null };
}

function selectionFor(
  tree: Parameters<typeof ancestorsOf>[0] & { rootId: string | null; nodes: ReadonlyMap<string, NodeSummary> },
  side: Side,
  id: string,
  meta: GraphMeta | null,
): Selection {
  if (id === tree.rootId) {
    const other: Side = side === 'npu' ? 'bench' : 'npu';
    const counterpartId = meta?.graphType === 'compare' ? (meta.roots[other] ?? null) : null;
    return { side, id, counterpartId, path: [], counterpartPath: [] };
  }
  const link = tree.nodes.get(id)?.matchedNodeLink ?? [];
  return {
    side,
    id,
    counterpartId: link.length > 0 ? link[link.length - 1] : null,
    path: ancestorsOf(tree, id),
    counterpartPath: link.slice(0, -1),
  };
}
