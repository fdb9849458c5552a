import { create } from 'zustand';
import type { GraphFileFormat, GraphMeta, NodeDetail, RunEntry, Side } from '../../core/api/types.js';
import type { IndexingProgress } from '../api/client.js';

/**
 * App-wide view state (one per page): which file, which micro step, what is selected. Each graph pane has its own
 * store for expansion/layout/viewport (src/app/pane). Everything here round-trips through the URL hash
 * (`#graphs?run=…&tag=…&step=…&rank=…&micro=…&side=…&node=…&pos=…`), so a copied link restores the view.
 *
 * CONTRACT (shared by the shell and the canvas code): keep these fields and actions; add more as needed.
 * The shell's async work (fetching runs, meta, node details, restoring links) lives in actions.ts / urlSync.ts;
 * this file holds only state and plain setters.
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
  /**
   * The node's child index at each split group on its path (core/layout/groupSplit), root first: lets a link open
   * the right pseudo-groups without searching. Absent when unknown or when no ancestor is split.
   */
  positions?: number[];
}

export type Lang = 'en' | 'zh-CN';

/** Which file a tag names (issue 16 added the TensorBoard-side formats). */
export type GraphFormat = GraphFileFormat;

/** The full records behind the info panel, by side (the selected node and its counterpart). */
export interface NodeDetails {
  /** `${side}:${id}|${counterpartId}` of the selection these records belong to, so stale answers are dropped. */
  key: string | null;
  npu: NodeDetail | null;
  bench: NodeDetail | null;
  loading: boolean;
  /** Why the records could not be loaded (server gone, node missing), shown in the info panel; null = no problem. */
  error?: string | null;
}

export interface AppState {
  runs: RunEntry[];
  /** The log dir as the server names it (shown when it holds no files). */
  logdir: string;
  runsLoaded: boolean;
  run: string | null;
  tag: string | null;
  /** Which file when a `.vis` and a `.vis.db` share run and tag; null = the server's choice (the `.vis`). */
  format: GraphFormat | null;
  /** `.vis.db` graph selectors; null = the file's first step / rank (what the server picks without a parameter). */
  step: number | null;
  rank: number | null;
  /** -1 = ALL. */
  micro: number;
  /** Issue 16's "Dataflow (inferred)" view flag: msprobe groups are asked for inferred edges (commands/dataflow.ts). */
  dataflow: boolean;
  meta: GraphMeta | null;
  metaLoading: boolean;
  selection: Selection | null;
  details: NodeDetails;
  lang: Lang;
  error: string | null;
  /** What was opened instead of what a link asked for (a run without a file), said beside the banner; null = none. */
  notice: string | null;
  /** A large `.vis` being indexed by the server (graph routes answer 202 meanwhile), or null. */
  indexing: IndexingProgress | null;
  /** Bumped whenever the opened file changes, so panes drop caches for the previous file. */
  fileVersion: number;
  sidebarOpen: boolean;
  /** Share of the centre width given to the NPU pane (compare files). */
  splitRatio: number;
  /** Info panel height in px. */
  infoHeight: number;
  select: (selection: Selection | null) => void;
  setError: (error: string | null) => void;
  setNotice: (notice: string | null) => void;
  setLang: (lang: Lang) => void;
  setMicro: (micro: number) => void;
  setSidebarOpen: (open: boolean) => void;
  setSplitRatio: (ratio: number) => void;
  setInfoHeight: (px: number) => void;
}

export const emptyDetails: NodeDetails = { key: null, npu: null, bench: null, loading: false };

export const INFO_MIN_HEIGHT = 32;
export const INFO_DEFAULT_HEIGHT = 300;

export const useAppStore = create<AppState>()((set) => ({
  runs: [],
  logdir: '',
  runsLoaded: false,
  run: null,
  tag: null,
  format: null,
  step: null,
  rank: null,
  micro: -1,
  dataflow: false,
  meta: null,
  metaLoading: false,
  selection: null,
  details: emptyDetails,
  lang: 'en',
  error: null,
  notice: null,
  indexing: null,
  fileVersion: 0,
  sidebarOpen: true,
  splitRatio: 0.5,
  infoHeight: INFO_DEFAULT_HEIGHT,
  select: (selection) => set({ selection }),
  setError: (error) => set({ error }),
  setNotice: (notice) => set({ notice }),
  setLang: (lang) => set({ lang }),
  setMicro: (micro) => set({ micro }),
  setSidebarOpen: (sidebarOpen) => set({ sidebarOpen }),
  setSplitRatio: (ratio) => set({ splitRatio: Math.min(0.95, Math.max(0.05, ratio)) }),
  setInfoHeight: (px) => set({ infoHeight: Math.max(INFO_MIN_HEIGHT, Math.round(px)) }),
}));

/** Identity of a selection for detail fetching: the same node and counterpart need no new request. */
export function selectionKey(selection: Selection | null): string | null {
  return selection ? `${selection.side}:${selection.id}|${selection.counterpartId ?? ''}` : null;
}
