import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Side } from '../../core/api/types.js';
import type { GroupLayout, Rect } from '../../core/layout/types.js';
import { EMPTY_TREE, type TreeState } from '../commands/treeState.js';
import type { Size, View } from '../commands/viewport.js';

/**
 * One store per graph pane (xyflow's per-instance store): the NPU and Bench panes are the same component twice,
 * each with its own tree, layout cache and viewport. App-wide state (file, selection) stays in useAppStore.
 */
export interface PaneState {
  side: Side;
  tree: TreeState;
  /** Committed group layouts: only these are drawn, so the picture never mixes old and new sizes. */
  layouts: ReadonlyMap<string, GroupLayout>;
  layoutBusy: boolean;
  view: View;
  size: Size;
  /** Graph-space rectangle the node layer draws (viewport plus margins); moves only when the viewport leaves it. */
  cullWindow: Rect;
  /** Set by reveal; cleared once the node has been brought into view (or cannot be). */
  scrollTarget: string | null;
  /** How the scroll target is brought into view: 'visible' scrolls only if needed; 'locate' centres it readably. */
  scrollMode: 'visible' | 'locate';
  /** False until the first root layout has set the opening view. */
  viewReady: boolean;
  /** Last problem loading or laying out, shown in the pane. */
  error: string | null;
  /** The node context menu (right click), in pane pixels; null when closed. */
  menu: { id: string; x: number; y: number } | null;
}

export type PaneStore = StoreApi<PaneState>;

export function createPaneStore(side: Side): PaneStore {
  return createStore<PaneState>()(() => ({
    side,
    tree: EMPTY_TREE,
    layouts: new Map(),
    layoutBusy: false,
    view: { x: 0, y: 0, k: 1 },
    size: { width: 0, height: 0 },
    cullWindow: { x: 0, y: 0, width: 0, height: 0 },
    scrollTarget: null,
    scrollMode: 'visible',
    viewReady: false,
    error: null,
    menu: null,
  }));
}
