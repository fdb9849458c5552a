import { createStore } from 'zustand/vanilla';
import type { Side } from '../../core/api/types.js';
import type { TreeState } from '../commands/treeState.js';
import type { View } from '../commands/viewport.js';
import { useAppStore } from './appStore.js';
import { emptyPaneLink, LINK_MAX_GROUPS, openGroupsForLink, type PaneLink } from './viewLink.js';

/**
 * The panes' side of a view that outlives one tree: what each pane is asked to restore once its tree is reset for a
 * file (from a link, or from the view before a step / rank / file switch), and what each pane shows now (for the
 * link). The panes consume plans and report their state (pane/paneViewLink.ts); urlSync.ts and actions.ts only
 * read and plan.
 */
export interface ViewPlan {
  /** The file the plan is for (appStore.fileVersion): a plan made for another file is never applied. */
  fileVersion: number;
  panes: Partial<Record<Side, PaneLink>>;
  /**
   * A link applied to the file already shown (address bar, back / forward): groups open but not planned close, so
   * the pane shows what the link does. Otherwise the trees were just reset and the plan only opens.
   */
  exact: boolean;
}

export const viewPlanStore = createStore<{ plan: ViewPlan | null }>()(() => ({ plan: null }));

/**
 * Asks the panes of the open file to restore `panes`. Sides without open groups or view are left alone, unless
 * `exact`: then each given side closes what it does not list.
 */
export function planView(panes: Partial<Record<Side, PaneLink>>, exact = false): void {
  const wanted = Object.fromEntries(Object.entries(panes).filter(([, p]) => p && (exact || p.open.length > 0 || p.view !== null)));
  const fileVersion = useAppStore.getState().fileVersion;
  viewPlanStore.setState({ plan: Object.keys(wanted).length > 0 ? { fileVersion, panes: wanted, exact } : null });
}

/** The side's part of the plan for the open file, or null. */
export function plannedPane(plan: ViewPlan | null, side: Side): PaneLink | null {
  return plan && plan.fileVersion === useAppStore.getState().fileVersion ? (plan.panes[side] ?? null) : null;
}

/** A pane finished restoring its part of `plan` (a newer plan is left alone). */
export function planDone(plan: ViewPlan, side: Side): void {
  if (viewPlanStore.getState().plan !== plan) return;
  const panes = { ...plan.panes };
  delete panes[side];
  viewPlanStore.setState({ plan: Object.keys(panes).length > 0 ? { ...plan, panes } : null });
  // The link now follows what the pane shows (ids the graph lacks drop out of it).
  listener?.();
}

export interface LivePane {
  tree: Pick<TreeState, 'rootId' | 'expanded' | 'parentOf'>;
  view: View;
  /** False until the pane's first layout set its opening view. */
  viewReady: boolean;
}

const live = new Map<Side, LivePane>();
let listener: (() => void) | null = null;

/** A pane's open groups or viewport changed (null = the pane went away). */
export function reportPane(side: Side, state: LivePane | null): void {
  if (state) live.set(side, state);
  else live.delete(side);
  listener?.();
}

/** The link writer (urlSync.ts) listens here; one listener per page. */
export function onPaneChange(next: (() => void) | null): void {
  listener = next;
}

/**
 * What a pane shows, for a link (at most `max` open groups) or a switch (`Infinity`). A restore still in progress
 * counts as shown, so a half-restored view never replaces the link being restored.
 */
export function paneLink(side: Side, max = LINK_MAX_GROUPS): PaneLink {
  const planned = plannedPane(viewPlanStore.getState().plan, side);
  if (planned) return planned.open.length > max ? { ...planned, open: planned.open.slice(0, max) } : planned;
  const pane = live.get(side);
  if (!pane) return emptyPaneLink;
  return { open: openGroupsForLink(pane.tree, max), view: pane.viewReady ? pane.view : null };
}
