import { memo, useMemo } from 'react';
import type { NodeSummary } from '../../core/api/types.js';
import { nodeFill, nodeStroke, type PaintContext } from '../../core/colors/nodePaint.js';
import { parseSplitId } from '../../core/layout/groupSplit.js';
import { nodeLabel } from '../../core/layout/nodeLabel.js';
import { visibleNodes } from '../../core/layout/scene.js';
import { NodeOp } from '../../core/model/graph.js';
import { translate } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { FAR_SCALE } from './canvasPaint.js';
import { DASH_API_COLLECTION, DASH_FUSION, DASH_SPLIT, NodeShape, SPLIT_STROKE } from './NodeShape.js';
import { splitPaint } from './paneFill.js';
import { usePane, usePaneController } from './paneContext.js';

/**
 * The drawn nodes: the committed layouts walked within the cull window, in pre-order (frames under their children),
 * as a flat keyed list. Below FAR_SCALE the canvas (FarCanvas) draws instead and this layer is empty. Clicks are
 * handled on the SVG (useNodePointer), so nodes carry no handlers of their own.
 */
export const NodeLayer = memo(function NodeLayer() {
  const controller = usePaneController();
  const side = controller.side;
  const far = usePane((s) => s.view.k < FAR_SCALE);
  const layouts = usePane((s) => s.layouts);
  const rootId = usePane((s) => s.tree.rootId);
  const nodes = usePane((s) => s.tree.nodes);
  const children = usePane((s) => s.tree.children);
  const loading = usePane((s) => s.tree.loading);
  const pending = usePane((s) => s.tree.pending);
  const failed = usePane((s) => s.tree.failed);
  const cullWindow = usePane((s) => s.cullWindow);
  const meta = useAppStore((s) => s.meta);
  const selection = useAppStore((s) => s.selection);
  const lang = useAppStore((s) => s.lang);

  const scene = useMemo(
    () => (rootId === null || far ? [] : visibleNodes(layouts, rootId, cullWindow)),
    [layouts, rootId, cullWindow, far],
  );
  const paint = useMemo<PaintContext>(
    () => ({ side, graphType: meta?.graphType ?? 'build', colors: meta?.colors ?? [] }),
    [side, meta],
  );

  return (
    <g className="pb-node-layer">
      {scene.map((n) => {
        const summary = nodes.get(n.id) ?? rootSummary(n.id);
        const range = parseSplitId(n.id);
        const busy = loading.has(n.id) || (pending.has(n.id) && !n.container);
        const common = {
          id: n.id,
          side,
          x: n.x,
          y: n.y,
          width: n.width,
          height: n.height,
          shape: n.shape,
          container: n.container,
          label: nodeLabel(n.id, summary.nodeType, n.depth),
          loading: busy,
          failure: failed.get(n.id),
        };
        if (range) {
          const split = `${range.lo}-${range.hi - 1}`;
          const { fill, shade, alarming } = splitPaint({ nodes, children }, n.id, paint);
          const hint = [
            translate(lang, 'pane.split', { range: common.label }),
            shade.worst === null ? '' : translate(lang, 'pane.splitWorst', { value: shade.worst.toFixed(4), count: shade.worstCount }),
            shade.unknown === 0 ? '' : translate(lang, 'pane.splitUnknown', { count: shade.unknown }),
          ];
          return (
            <NodeShape
              key={n.id}
              {...common}
              fill={fill}
              stroke={alarming ? nodeStroke(fill, side, false).color : SPLIT_STROKE}
              strokeWidth={1}
              dash={DASH_SPLIT}
              selected={false}
              counterpart={false}
              split={split}
              splitOf={range.parentId}
              hint={hint.filter(Boolean).join('\n')}
              badge={alarming ? shade.worstCount : undefined}
              unknown={shade.unknown}
            />
          );
        }
        const fill = nodeFill(summary, paint);
        const selected = selection !== null && selection.side === side && selection.id === n.id;
        const counterpart = selection !== null && selection.side !== side && selection.counterpartId === n.id;
        const stroke = nodeStroke(fill, side, selected || counterpart);
        // The server's group of nodes the root does not reach (issue 14 #11): named and dashed as no node of the file.
        const unreachable = summary.synthetic === 'unreachable';
        return (
          <NodeShape
            key={n.id}
            {...common}
            {...(unreachable ? { label: translate(lang, 'pane.unreachable', { count: summary.childCount }), hint: translate(lang, 'pane.unreachableTip') } : {})}
            fill={fill}
            stroke={stroke.color}
            strokeWidth={stroke.width}
            dash={unreachable ? DASH_SPLIT : dashOf(summary.nodeType)}
            selected={selected}
            counterpart={counterpart}
          />
        );
      })}
    </g>
  );
});

function dashOf(nodeType: number): string | undefined {
  if (nodeType === NodeOp.apiCollection) return DASH_API_COLLECTION;
  if (nodeType === NodeOp.multiCollection) return DASH_FUSION;
  return undefined;
}

/** The root is never in a children list, so the pane has no summary for it; it is a matched module. */
export function rootSummary(id: string): NodeSummary {
  return { id, nodeType: NodeOp.module, precisionIndex: null, overflowLevel: null, matchedNodeLink: [id], childCount: 1, microStepId: null };
}
