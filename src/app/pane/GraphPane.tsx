import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { Side } from '../../core/api/types.js';
import type { TextMeasurer } from '../../core/layout/textMeasure.js';
import { splitPositions } from '../commands/splitTree.js';
import { useAppStore, type Selection } from '../state/appStore.js';
import { createCanvasTextMeasurer } from './canvasTextMeasurer.js';
import { PANE_LAYOUT_PARAMS } from './labelFit.js';
import { createWorkerLayoutRunner } from './layoutRunner.js';
import { EdgeLayer } from './EdgeLayer.js';
import { NodeLayer } from './NodeLayer.js';
import { PaneContext, usePane, usePaneController } from './paneContext.js';
import { PaneController, SHADE_PREFETCH_MAX, type FetchChildren } from './paneController.js';
import { createPaneStore } from './paneStore.js';
import { usePaneText } from './paneText.js';
import { usePanZoom } from './usePanZoom.js';
import { usePaneViewLink } from './paneViewLink.js';
import { useNodePointer } from './useNodePointer.js';
import { FarCanvas } from './FarCanvas.js';
import { Minimap } from './Minimap.js';
import { useStore } from 'zustand';
import { useT } from '../i18n/i18n.js';
import { counterpartAction } from '../commands/syncExpand.js';
import { applyToCounterpartPane, isPointerSelection, registerPane, syncStore } from './paneRegistry.js';
import './graphPane.css';

export interface GraphPaneProps {
  side: Side;
  /**
   * Children of one node, in execution order; the shell binds run, tag, step, rank and micro step. The pane always
   * passes an id (the root's from meta.roots) and asks for pages of large groups.
   */
  fetchChildren: FetchChildren;
}

let sharedMeasurer: TextMeasurer | null = null;

/** Below this scale labels are a few pixels tall and unreadable; hiding them (CSS, no re-render) keeps zoom-out fast. */
const LABEL_MIN_SCALE = 0.4;

/**
 * One graph canvas (NPU or Bench): nested boxes in execution order, lazily expanded, laid out per group in a worker,
 * culled to the viewport. Owns its store and managers; reads the file, micro step and selection from useAppStore.
 */
export function GraphPane({ side, fetchChildren }: GraphPaneProps) {
  const [controller, setController] = useState<PaneController | null>(null);
  const fetchRef = useRef(fetchChildren);
  const svgRef = useRef<SVGSVGElement | null>(null);

  useLayoutEffect(() => {
    fetchRef.current = fetchChildren;
  }, [fetchChildren]);

  useEffect(() => {
    sharedMeasurer ??= createCanvasTextMeasurer();
    const created = new PaneController(
      createPaneStore(side),
      (s, id, page) => fetchRef.current(s, id, page),
      createWorkerLayoutRunner(),
      sharedMeasurer,
      PANE_LAYOUT_PARAMS,
      { shadePrefetchMax: SHADE_PREFETCH_MAX },
    );
    setController(created);
    const unregister = registerPane(created);
    return () => {
      unregister();
      created.dispose();
    };
  }, [side]);

  const paneLabel = useT()(side === 'npu' ? 'pane.npu' : 'pane.bench');
  const rootId = useAppStore((s) => s.meta?.roots[side] ?? null);
  const run = useAppStore((s) => s.run);
  const tag = useAppStore((s) => s.tag);
  const micro = useAppStore((s) => s.micro);
  const fileVersion = useAppStore((s) => s.fileVersion);
  const selection = useAppStore((s) => s.selection);

  useEffect(() => {
    controller?.reset(rootId);
  }, [controller, rootId, run, tag, micro, fileVersion]);

  // Declared after the reset so a deep link's selection is revealed in the freshly opened tree.
  useEffect(() => {
    if (!controller || !selection) return;
    const mode = isPointerSelection(selection) ? 'visible' : 'locate';
    if (selection.side === side) {
      void controller.reveal(selection.path, selection.id, selection.positions, mode === 'visible' ? 'stay' : mode).then((ok) => {
        if (ok) recordPositions(controller, selection);
      });
    } else if (selection.counterpartId !== null && (mode === 'visible' || syncStore.getState().sync)) {
      // A locate takes the counterpart along only with sync on (issue 14); a click reveals it as before.
      // Both sides usually list the same children in the same order: the selection's positions are a good first
      // guess for its counterpart (checked before use; a wrong guess costs one small request).
      void controller.reveal(selection.counterpartPath, selection.counterpartId, selection.positions, mode);
    }
  }, [controller, side, selection, rootId, run, tag, micro, fileVersion]);

  // After the reset and the selection's reveal: a link's open groups and viewport (applied last).
  usePaneViewLink(controller, side);

  useEffect(() => {
    const svg = svgRef.current;
    if (!controller || !svg) return;
    const observer = new ResizeObserver(() => controller.resized(svg.clientWidth, svg.clientHeight));
    observer.observe(svg);
    controller.resized(svg.clientWidth, svg.clientHeight);
    return () => observer.disconnect();
  }, [controller]);

  usePanZoom(svgRef, controller);
  useNodePointer(svgRef, controller);

  return (
    <div className="pb-graph-pane" data-testid={`pane-${side}`} data-side={side}>
      {controller && (
        <PaneContext.Provider value={controller}>
          <FarCanvas />
        </PaneContext.Provider>
      )}
      <svg ref={svgRef} className="pb-graph-svg" role="img" aria-label={paneLabel}>
        {controller && (
          <PaneContext.Provider value={controller}>
            <ViewportGroup>
              <NodeLayer />
              <EdgeLayer />
            </ViewportGroup>
          </PaneContext.Provider>
        )}
      </svg>
      {controller && (
        <PaneContext.Provider value={controller}>
          <PaneOverlay />
        </PaneContext.Provider>
      )}
    </div>
  );
}

/**
 * Once a selection is drawn, its place in split groups goes into the selection (and so into the link's `pos=`), so
 * a search result or a link without positions becomes a link that opens without searching.
 */
function recordPositions(controller: PaneController, selection: Selection): void {
  const app = useAppStore.getState();
  if (app.selection !== selection) return;
  const positions = splitPositions(controller.store.getState().tree, selection.id);
  const known = selection.positions ?? [];
  if (positions.length === known.length && positions.every((p, i) => p === known[i])) return;
  app.select({ ...selection, positions });
}

/**
 * The pan/zoom transform. It re-renders on every view change; its children element is created by GraphPane, so the
 * node layer is not re-rendered by a pan (React bails out on the identical element).
 */
function ViewportGroup({ children }: { children: ReactNode }) {
  const view = usePane((s) => s.view);
  const side = usePane((s) => s.side);
  return (
    <g
      data-testid={`viewport-${side}`}
      transform={`translate(${view.x},${view.y}) scale(${view.k})`}
      data-lod={view.k < LABEL_MIN_SCALE ? 'low' : undefined}
      data-scale={view.k}
      data-tx={view.x}
      data-ty={view.y}
    >
      {children}
    </g>
  );
}

function PaneOverlay() {
  const controller = usePaneController();
  const t = usePaneText();
  const busy = usePane((s) => s.layoutBusy || s.tree.loading.size > 0);
  const error = usePane((s) => s.error);
  const side = controller.side;
  const compare = useAppStore((s) => s.meta?.graphType === 'compare');
  const [minimap, setMinimap] = useState(true);
  const tt = useT();
  return (
    <>
      {minimap && <Minimap />}
      {busy && (
        <div className="pb-graph-loading" data-testid={`loading-${side}`} role="status">
          {t('loading')}
        </div>
      )}
      {error && (
        <div className="pb-graph-error" role="alert" title={error}>
          {error}
        </div>
      )}
      <DataflowSkipped />
      <div className="pb-graph-tools">
        <button
          type="button"
          className="pb-graph-fit"
          data-testid={`fit-${side}`}
          title={`${t('fitTip')}\n${t('keysTip')}`}
          onClick={() => controller.fit()}
        >
          {t('fit')}
        </button>
        {compare && <SyncToggle side={side} />}
        <label className="pb-graph-sync" title={tt('pane.minimapTip')}>
          <input type="checkbox" data-testid={`minimap-toggle-${side}`} checked={minimap} onChange={(event) => setMinimap(event.target.checked)} />
          {tt('pane.minimap')}
        </label>
      </div>
      <NodeMenu />
    </>
  );
}

/** Says why an open module shows no inferred dataflow: the server skips modules with too many children. */
function DataflowSkipped() {
  const side = usePaneController().side;
  const t = useT();
  const tree = usePane((s) => s.tree);
  const skipped = [...tree.dataflowSkipped]
    .filter(([id]) => tree.expanded.has(id))
    .map(([id, limit]) => ({ id, limit, count: tree.totals.get(id) ?? tree.nodes.get(id)?.childCount ?? 0 }));
  if (skipped.length === 0) return null;
  return (
    <div className="pb-graph-note" data-testid={`dataflow-skipped-${side}`} role="status">
      {skipped.map(({ id, limit, count }) => (
        <div key={id} data-group={id}>
          {t('dataflow.skipped', { group: id, count: count.toLocaleString('en-US'), limit: limit.toLocaleString('en-US') })}
        </div>
      ))}
    </div>
  );
}

/** The sync-expand switch (issue 14 item 4), shared by both panes; on by default. */
function SyncToggle({ side }: { side: Side }) {
  const t = useT();
  const sync = useStore(syncStore, (s) => s.sync);
  return (
    <label className="pb-graph-sync" title={t('pane.syncTip')}>
      <input
        type="checkbox"
        data-testid={`sync-${side}`}
        checked={sync}
        onChange={(event) => syncStore.setState({ sync: event.target.checked })}
      />
      {t('pane.sync')}
    </label>
  );
}

/** Right-click menu on a node with a counterpart: "Expand counterpart" opens it on the other side (sync or not). */
function NodeMenu() {
  const controller = usePaneController();
  const t = useT();
  const menu = usePane((s) => s.menu);
  const menuRef = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    if (!menu) return;
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent && event.key !== 'Escape') return;
      if (event.target instanceof Node && menuRef.current?.contains(event.target)) return;
      controller.store.setState({ menu: null });
    };
    window.addEventListener('pointerdown', close, true);
    window.addEventListener('keydown', close, true);
    window.addEventListener('wheel', close, true);
    return () => {
      window.removeEventListener('pointerdown', close, true);
      window.removeEventListener('keydown', close, true);
      window.removeEventListener('wheel', close, true);
    };
  }, [menu, controller]);
  if (!menu) return null;
  const expandCounterpart = () => {
    const tree = controller.store.getState().tree;
    controller.store.setState({ menu: null });
    applyToCounterpartPane(counterpartAction(tree, controller.side, menu.id, true, useAppStore.getState().meta));
  };
  return (
    <div
      ref={menuRef}
      className="pb-graph-menu"
      role="menu"
      data-testid={`node-menu-${controller.side}`}
      style={{ left: menu.x, top: menu.y }}
    >
      <button type="button" role="menuitem" data-testid={`expand-counterpart-${controller.side}`} onClick={expandCounterpart}>
        {t('pane.expandCounterpart')}
      </button>
    </div>
  );
}
