import { useEffect } from 'react';
import { useStore } from 'zustand';
import type { Side } from '../../core/api/types.js';
import { closeAllBut, wantOpen } from '../commands/expansion.js';
import { ancestorsOf, childrenToFetch, type TreeState } from '../commands/treeState.js';
import { useAppStore } from '../state/appStore.js';
import type { PaneLink } from '../state/viewLink.js';
import { planDone, plannedPane, reportPane, viewPlanStore } from '../state/viewPlan.js';
import type { PaneController } from './paneController.js';
import { isPointerSelection, syncStore } from './paneRegistry.js';
import type { PaneState } from './paneStore.js';

/** Nothing left to load, lay out or bring into view: the tree is what it will be. */
function settled(state: PaneState): boolean {
  const { tree } = state;
  return (
    state.viewReady &&
    state.scrollTarget === null &&
    !state.layoutBusy &&
    tree.loading.size === 0 &&
    tree.dirty.size === 0 &&
    childrenToFetch(tree).length === 0
  );
}

/**
 * What an exact plan leaves open: the link's groups and those holding the selection (or its counterpart, where
 * GraphPane reveals it), as a fresh page opening the link would show them.
 */
function keptGroups(tree: TreeState, side: Side, link: PaneLink): Set<string> {
  const keep = new Set(link.open);
  const selection = useAppStore.getState().selection;
  if (!selection) return keep;
  const own = selection.side === side;
  if (!own && !isPointerSelection(selection) && !syncStore.getState().sync) return keep;
  const id = own ? selection.id : selection.counterpartId;
  if (id === null) return keep;
  // The server's path names the real groups; the tree adds the split groups the node was placed in.
  for (const group of [...(own ? selection.path : selection.counterpartPath), ...ancestorsOf(tree, id)]) keep.add(group);
  return keep;
}

/**
 * Restores a pane's part of a link or switch: its groups are opened level by level as they load (ids the graph
 * lacks are skipped), and its viewport is applied last, once everything is laid out and the selection has been
 * brought into view, so neither the opening view nor a locate overrides it. `exact` first closes the groups the
 * link does not list (viewPlan.ts). Returns a cancel function.
 */
export function restorePane(controller: PaneController, link: PaneLink, done: () => void, exact = false): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    if (!settled(controller.store.getState())) return;
    stop();
    if (link.view) controller.setView(link.view);
    done();
  };
  // Checked after the change that triggered it has run to its end: a locate clears its target and then moves.
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(check, 0);
  };
  if (exact) controller.updateTree((tree) => closeAllBut(tree, keptGroups(tree, controller.side, link)));
  controller.updateTree((tree) => wantOpen(tree, link.open));
  const unsubscribe = controller.store.subscribe(later);
  const stop = () => {
    clearTimeout(timer);
    unsubscribe();
  };
  later();
  return stop;
}

/**
 * Binds a pane to the view link: reports its open groups and viewport to the link writer, and applies the plan for
 * the open file once the pane's tree has been reset for it. Called by GraphPane after its reset and selection
 * effects, so a plan is applied to the fresh tree, after the selection's reveal has started.
 */
export function usePaneViewLink(controller: PaneController | null, side: Side): void {
  const plan = useStore(viewPlanStore, (s) => s.plan);
  const rootId = useAppStore((s) => s.meta?.roots[side] ?? null);
  const run = useAppStore((s) => s.run);
  const tag = useAppStore((s) => s.tag);
  const micro = useAppStore((s) => s.micro);
  const fileVersion = useAppStore((s) => s.fileVersion);

  useEffect(() => {
    if (!controller) return;
    const report = ({ tree, view, viewReady }: PaneState) => reportPane(side, { tree, view, viewReady });
    report(controller.store.getState());
    const stop = controller.store.subscribe((state, previous) => {
      if (state.tree.expanded !== previous.tree.expanded || state.view !== previous.view || state.viewReady !== previous.viewReady) report(state);
    });
    return () => {
      stop();
      reportPane(side, null);
    };
  }, [controller, side]);

  // The same dependencies as GraphPane's reset: a reset mid-restore starts the restore again on the fresh tree.
  useEffect(() => {
    const link = plannedPane(plan, side);
    if (!controller || !plan || !link) return;
    return restorePane(controller, link, () => planDone(plan, side), plan.exact);
  }, [controller, side, plan, rootId, run, tag, micro, fileVersion]);
}
