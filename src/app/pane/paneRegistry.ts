import { createStore } from 'zustand/vanilla';
import type { Side } from '../../core/api/types.js';
import type { CounterpartAction } from '../commands/syncExpand.js';
import type { PaneController } from './paneController.js';
import { useAppStore, type Selection } from '../state/appStore.js';

/**
 * The mounted panes by side, so one pane can act on the other (sync-expand, "Expand counterpart"), and the
 * sync switch they share (on by default).
 */
const panes = new Map<Side, PaneController>();

export function registerPane(controller: PaneController): () => void {
  const side = controller.side;
  panes.set(side, controller);
  return () => {
    if (panes.get(side) === controller) panes.delete(side);
  };
}

export function paneFor(side: Side): PaneController | null {
  return panes.get(side) ?? null;
}

export const syncStore = createStore<{ sync: boolean }>()(() => ({ sync: true }));

/** Applies a counterpart action to the pane of its side (if mounted). */
export function applyToCounterpartPane(action: CounterpartAction | null): void {
  if (!action) return;
  const pane = paneFor(action.side);
  if (!pane) return;
  if (action.open) void pane.openNode(action.path, action.id);
  else pane.closeNode(action.id);
}

/**
 * The node last selected by a click in a pane. A selection of it is no locate: the view stays where the user is.
 * Any other selection (search, filter, worst nodes, first divergent, link: all go through the app's select) is a
 * locate and is centred at a readable zoom. Cleared once the selection moves to another node.
 */
let pointerSelected: { side: string; id: string } | null = null;

export function markPointerSelection(side: Side, id: string): void {
  pointerSelected = { side, id };
}

export function isPointerSelection(selection: Pick<Selection, 'side' | 'id'>): boolean {
  return pointerSelected !== null && pointerSelected.side === selection.side && pointerSelected.id === selection.id;
}

useAppStore.subscribe((state) => {
  const selection = state.selection;
  if (pointerSelected && (!selection || !isPointerSelection(selection))) pointerSelected = null;
});
