import { useEffect, type RefObject } from 'react';
import type { GraphMeta, Side } from '../../core/api/types.js';
import { isSplitId } from '../../core/layout/groupSplit.js';
import { hitTest } from '../../core/layout/scene.js';
import { realAncestors, splitPositions } from '../commands/splitTree.js';
import type { TreeState } from '../commands/treeState.js';
import { useAppStore, type Selection } from '../state/appStore.js';
import { FAR_SCALE } from './canvasPaint.js';
import type { PaneController } from './paneController.js';
import { applyToCounterpartPane, markPointerSelection, syncStore } from './paneRegistry.js';
import { counterpartAction, isOpenOrOpening } from '../commands/syncExpand.js';

/**
 * Click selects, double click expands or collapses. The node is the SVG element under the pointer, or, at far zoom
 * where the canvas draws and there are no elements, the box under the pointer (hitTest).
 */
export function useNodePointer(svgRef: RefObject<SVGSVGElement | null>, controller: PaneController | null): void {
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg || !controller) return;
    const nodeAt = (event: MouseEvent): string | null => {
      const element = (event.target as Element | null)?.closest?.('[data-node-id]');
      if (element) return element.getAttribute('data-node-id');
      const { view, layouts, tree } = controller.store.getState();
      if (view.k >= FAR_SCALE || tree.rootId === null) return null;
      const box = svg.getBoundingClientRect();
      return hitTest(layouts, tree.rootId, { x: (event.clientX - box.left - view.x) / view.k, y: (event.clientY - box.top - view.y) / view.k });
    };
    const onClick = (event: MouseEvent) => {
      const id = nodeAt(event);
      // A pseudo-group is no node of the file: nothing to select, it only opens and closes.
      if (id === null || isSplitId(id)) return;
      const app = useAppStore.getState();
      markPointerSelection(controller.side, id);
      app.select(selectionFor(controller.store.getState().tree, controller.side, id, app.meta));
    };
    const onDoubleClick = (event: MouseEvent) => {
      const id = nodeAt(event);
      if (id === null) return;
      event.preventDefault();
      controller.toggle(id);
      if (!syncStore.getState().sync) return;
      const tree = controller.store.getState().tree;
      applyToCounterpartPane(counterpartAction(tree, controller.side, id, isOpenOrOpening(tree, id), useAppStore.getState().meta));
    };
    const onContextMenu = (event: MouseEvent) => {
      const id = nodeAt(event);
      const { tree } = controller.store.getState();
      // Only a node with a counterpart gets the menu; elsewhere the browser's own menu stays.
      if (id === null || !counterpartAction(tree, controller.side, id, true, useAppStore.getState().meta)) return;
      event.preventDefault();
      const box = svg.getBoundingClientRect();
      controller.store.setState({ menu: { id, x: event.clientX - box.left, y: event.clientY - box.top } });
    };
    svg.addEventListener('click', onClick);
    svg.addEventListener('dblclick', onDoubleClick);
    svg.addEventListener('contextmenu', onContextMenu);
    return () => {
      svg.removeEventListener('click', onClick);
      svg.removeEventListener('dblclick', onDoubleClick);
      svg.removeEventListener('contextmenu', onContextMenu);
    };
  }, [svgRef, controller]);
}

/** What a click on `id` selects: its real ancestors, its counterpart from matched_node_link, its split positions. */
export function selectionFor(tree: TreeState, side: Side, id: string, meta: GraphMeta | null): Selection {
  if (id === tree.rootId) {
    const other: Side = side === 'npu' ? 'bench' : 'npu';
    const counterpartId = meta?.graphType === 'compare' ? (meta.roots[other] ?? null) : null;
    return { side, id, counterpartId, path: [], counterpartPath: [] };
  }
  const link = tree.nodes.get(id)?.matchedNodeLink ?? [];
  const positions = splitPositions(tree, id);
  return {
    side,
    id,
    counterpartId: link.length > 0 ? link[link.length - 1] : null,
    path: realAncestors(tree, id),
    counterpartPath: link.slice(0, -1),
    ...(positions.length > 0 ? { positions } : {}),
  };
}
