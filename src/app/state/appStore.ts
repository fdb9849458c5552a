import { create } from 'zustand';
import type { GraphMeta, RunEntry, Side } from '../../core/api/types.js';

/**
 * App-wide view state (one per page): which file, which micro step, what is selected. Each graph pane has its own
 * store for expansion/layout/viewport (src/app/pane). Everything here round-trips through the URL hash
 * (`#graphs?run=…&tag=…&micro=…&node=…&side=…`), so a copied link restores the view.
 *
 * CONTRACT (shared by the shell and the canvas code): keep these fields and actions; add more as needed.
 */
export interface Selection {
  side: Side;
  id: string;
  /** Counterpart id on the other side (last element of matched_node_link), or null when unmatched. */
  counterpartId: string | null;
  /** Ancestor ids root→parent of the selected node on its side, so a pane can reveal it (deep links). */
  path: string[];
  /** Ancestor ids root→parent of the counterpart on the other side (matched_node_link without its last element). */
  counterpartPath: string[];
}

export interface AppState {
  runs: RunEntry[];
  run: string | null;
  tag: string | null;
  /** -1 = ALL. */
  micro: number;
  meta: GraphMeta | null;
  selection: Selection | null;
  lang: 'en' | 'zh-CN';
  error: string | null;
  /** Bumped whenever the opened file changes, so panes drop caches for the previous file. */
  fileVersion: number;
  select: (selection: Selection | null) => void;
}

export const useAppStore = create<AppState>()((set) => ({
  runs: [],
  run: null,
  tag: null,
  micro: -1,
  meta: null,
  selection: null,
  lang: 'en',
  error: null,
  fileVersion: 0,
  select: (selection) => set({ selection }),
}));
