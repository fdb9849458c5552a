import type { GraphMeta, RunEntry, Side } from '../../core/api/types.js';
import { rankSiblings } from '../../core/ranks/rankTag.js';
import { openFile, revealNode } from '../state/actions.js';
import { useAppStore, type GraphFormat } from '../state/appStore.js';
import { isEmptyGraph } from '../state/fileChoice.js';

/**
 * "Open rank N at node X" for the heatmap and the communication peers (issue 14 #6): a `.vis.db` holds every rank
 * (the rank picker's graph, same step), a run of per-rank `.vis` files one rank per file (msprobe-format.md §4.4).
 */

export interface RankGraph {
  run: string;
  tag: string;
  format: GraphFormat;
  /** `.vis.db` only; null for a `.vis`. */
  step: number | null;
  rank: number | null;
}

export interface OpenView {
  runs: RunEntry[];
  run: string | null;
  tag: string | null;
  step: number | null;
  meta: GraphMeta | null;
}

/** Where `rank` of the open run is, or null when the run holds no such rank. Pure. */
export function rankGraph(view: OpenView, rank: number): RankGraph | null {
  const { run, tag, meta } = view;
  if (run === null || tag === null || !meta) return null;
  if (meta.format === 'db') {
    return meta.ranks.includes(rank) ? { run, tag, format: 'db', step: view.step ?? meta.steps[0] ?? null, rank } : null;
  }
  const files = view.runs.find((r) => r.run === run)?.tags ?? [];
  const sibling = rankSiblings(files, tag).find((f) => f.rank === rank);
  return sibling ? { run, tag: sibling.tag, format: 'vis', step: null, rank: null } : null;
}

/** Whether `target` is the graph already open (then only the node is selected). Pure. */
export function isOpenGraph(view: OpenView & { format: GraphFormat | null; rank: number | null }, target: RankGraph): boolean {
  if (view.run !== target.run || view.tag !== target.tag) return false;
  if (target.format === 'vis') return view.meta?.format !== 'db';
  return view.meta?.format === 'db' && (view.rank ?? view.meta.ranks[0]) === target.rank && (view.step ?? view.meta.steps[0]) === target.step;
}

/** Opens `target` (unless open) and selects `nodeId` there, its ancestors expanded. Resolves whether it was found. */
export async function openGraphAt(target: RankGraph, side: Side, nodeId: string): Promise<boolean> {
  if (!isOpenGraph(useAppStore.getState(), target)) {
    const opened = await openFile(target.run, target.tag, { format: target.format, step: target.step, rank: target.rank });
    const meta = useAppStore.getState().meta;
    if (!opened || !meta || isEmptyGraph(meta)) return false;
  }
  return revealNode(side, nodeId);
}

/** Rank `rank` of the open run at `nodeId`; false when the run has no such rank. */
export function openRankAt(rank: number, side: Side, nodeId: string): Promise<boolean> {
  const target = rankGraph(useAppStore.getState(), rank);
  return target ? openGraphAt(target, side, nodeId) : Promise.resolve(false);
}
