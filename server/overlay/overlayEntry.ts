import type { OpOutcome, OverlayResponse, PrecisionMetric } from '../../src/core/api/overlay.js';
import type { NodeDetail, NodeSummary, Side } from '../../src/core/api/types.js';
import { metricMask, precisionFromMetrics, type NodeChange, type OverlayGraph } from '../../src/core/match/index.js';
import type { GraphSelector } from '../store/findQuery.js';
import { budgetLeftMs, checkBudget, WorkInProgress } from '../store/workBudget.js';
import type { RatedNodes } from '../store/worstQuery.js';
import type { GraphStore } from '../store/graphStore.js';
import { ExecOrder } from './execOrder.js';
import type { CellTables, MetricCellTable } from './metricCells.js';
import { SideWalk } from './sideWalk.js';
import type { StoreMatchGraph } from './storeMatchGraph.js';

/** The file version and graph an overlay belongs to: its id covers all of it. */
export interface OverlayTarget {
  absPath: string;
  relPath: string;
  format: 'vis' | 'db';
  run: string;
  tag: string;
  stamp: string;
  step: number;
  rank: number;
}

/** The file's own unmatched counts for one graph (from its filter), which an overlay's counts start from. */
export interface BaseCounts {
  npuUnmatched: number;
  benchUnmatched: number;
  npuNodes: number;
}

/**
 * Work kept across requests (the rated list's pass, a side's walk) reads at most this long per request, then answers
 * 202 and goes on at the client's next request: other users' requests wait at most that long behind it.
 */
const SLICE_MS = 400;
/** A rough size of one node record the graph adapter keeps (a few items of a dozen statistics). */
const RECORD_BYTES = 4096;
/** Rated nodes whose metric cells are read per store call while the worst list is rebuilt. */
const CELLS_AHEAD = 2048;

/**
 * One registered overlay (src/core/api/overlay.ts): the replayed operations over one graph of one file version, and
 * what graph answers need from it — each node's patched summary and record, and for the worst table the side's rated
 * list with the changed nodes moved in or out (and, with a metric choice, every value recomputed). Immutable once
 * registered, except for those derived lists, which are built once on first use.
 */
export class OverlayEntry {
  /** The changed nodes per side, with their accumulated change. */
  readonly patches: Record<Side, Map<string, NodeChange>> = { npu: new Map(), bench: new Map() };
  /** Estimated bytes held (changes and derived lists), for the registry's memory bound. */
  bytes: number;
  private readonly ratedLists = new Map<Side, PatchedRated>();
  private readonly passes = new Map<Side, { next: number; values: Float64Array }>();
  private readonly orders = new Map<Side, ExecOrder>();
  private readonly walks = new Map<Side, SideWalk>();
  private readonly walked = new Set<Side>();

  constructor(
    readonly id: string,
    readonly target: OverlayTarget,
    /** Canonical text of each op, for the registry's longest-prefix replay. */
    readonly opKeys: readonly string[],
    /** null = all four (the file's own index), or a task other than statistics, where the dialog does not apply. */
    readonly metrics: readonly PrecisionMetric[] | null,
    readonly graph: StoreMatchGraph,
    readonly view: OverlayGraph,
    readonly outcomes: readonly OpOutcome[],
    /** The server's metric cells tables (metricCells.ts). */
    private readonly cellTables: CellTables,
  ) {
    let bytes = 1024;
    for (const change of view.changes()) {
      this.patches[change.side].set(change.id, change);
      bytes += 2 * (change.id.length + change.matchedNodeLink.reduce((n, s) => n + s.length + 16, 64));
      if (change.inputData) bytes += itemsBytes(change.inputData);
      if (change.outputData) bytes += itemsBytes(change.outputData);
    }
    // The graph adapter keeps the records the replay compared (shared along a chain of entries: counted in each).
    this.bytes = bytes + graph.recordsRead * RECORD_BYTES;
    this.mask = metricMask(metrics ?? []);
  }

  /** The file's counts moved by every node whose link the overlay empties or fills. */
  counts(base: BaseCounts): OverlayResponse['counts'] {
    const unmatched: Record<Side, number> = { npu: base.npuUnmatched, bench: base.benchUnmatched };
    for (const side of ['npu', 'bench'] as const) {
      for (const change of this.patches[side].values()) {
        const before = (this.graph.summary(side, change.id)?.matchedNodeLink.length ?? 0) > 0;
        const after = change.matchedNodeLink.length > 0;
        if (before && !after) unmatched[side]++;
        if (!before && after) unmatched[side]--;
      }
    }
    return { npuUnmatched: unmatched.npu, benchUnmatched: unmatched.bench, matched: Math.max(0, base.npuNodes - unmatched.npu) };
  }

  /** The NPU nodes this overlay leaves matched to a counterpart it chose: its manual matches, `[npu, bench]`. */
  manualPairs(): Array<[string, string]> {
    const pairs: Array<[string, string]> = [];
    for (const change of this.patches.npu.values()) {
      const bench = change.matchedNodeLink[change.matchedNodeLink.length - 1];
      if (bench !== undefined) pairs.push([change.id, bench]);
    }
    return pairs;
  }

  get selector(): GraphSelector {
    return { step: this.target.step, rank: this.target.rank };
  }

  /** Whether answers on `side` can differ from the file's. */
  changes(side: Side): boolean {
    return this.patches[side].size > 0 || (side === 'npu' && this.metrics !== null);
  }

  /** A summary as the overlay sees it: link and index of a changed node, the index under the metric choice. */
  summary<T extends NodeSummary>(side: Side, s: T): T {
    const change = this.patches[side].get(s.id);
    const precisionIndex = this.precisionOf(side, s, -1);
    if (!change && Object.is(precisionIndex, s.precisionIndex)) return s;
    return change ? { ...s, matchedNodeLink: [...change.matchedNodeLink], precisionIndex } : { ...s, precisionIndex };
  }

  /** The link of summary(side, s), without building it. */
  linkOf(side: Side, s: NodeSummary): readonly string[] {
    const patches = this.patches[side];
    return (patches.size > 0 ? patches.get(s.id)?.matchedNodeLink : undefined) ?? s.matchedNodeLink;
  }

  /**
   * The precision index of summary(side, s), without building it. `slot`: the node's slot in metricTable() when the
   * caller knows it (a recolour of a kept view, summaryViews.ts), else -1.
   */
  precisionOf(side: Side, s: NodeSummary, slot: number): number | null {
    const patches = this.patches[side];
    const change = patches.size > 0 ? patches.get(s.id) : undefined;
    const stored = change && change.precisionIndex !== undefined ? change.precisionIndex : s.precisionIndex;
    if (!this.metrics || side !== 'npu' || (change ? change.matchedNodeLink : s.matchedNodeLink).length === 0) return stored;
    const v = slot >= 0 && !change?.outputData ? this.cellValue(s.id, slot) : this.metricValue(s.id);
    return v === null ? stored : v;
  }

  /** A full record as the overlay sees it: also the changed items. */
  detail(side: Side, d: NodeDetail): NodeDetail {
    const change = this.patches[side].get(d.id);
    const items = change ? { inputData: change.inputData ?? d.inputData, outputData: change.outputData ?? d.outputData } : {};
    const out: NodeDetail = { ...d, ...items };
    if (change) {
      out.matchedNodeLink = [...change.matchedNodeLink];
      if (change.precisionIndex !== undefined) out.precisionIndex = change.precisionIndex;
    }
    if (this.metrics && side === 'npu' && out.matchedNodeLink.length > 0) {
      const v = precisionFromMetrics(out.outputData, this.metrics);
      if (v) out.precisionIndex = v.precisionIndex;
    }
    return out;
  }

  /**
   * Reads the metric cells of the matched NPU nodes among `ids` that no overlay on this file has read yet, for at most
   * this request's slice (then WorkInProgress: 202, and the next request goes on). A no-op without a metric choice.
   */
  prepareMetrics(ids: readonly string[]): void {
    if (this.metrics) this.cells().fill(this.graph.store, this.target, ids, performance.now() + sliceMs(), true);
  }

  private cellsOf: MetricCellTable | undefined;
  private readonly mask: number;

  /** The file's metric cells, shared with every overlay on it (metricCells.ts). */
  private cells(): MetricCellTable {
    return (this.cellsOf ??= this.cellTables.of(this.target));
  }

  /** The metric cells precisionOf reads under a metric choice; null without one. */
  metricTable(): MetricCellTable | null {
    return this.metrics ? this.cells() : null;
  }

  /** The recomputed index of a matched NPU node (null: the original keeps the stored one). */
  private metricValue(id: string): number | null {
    const change = this.patches.npu.get(id);
    if (change?.outputData) return precisionFromMetrics(change.outputData, this.metrics!)?.precisionIndex ?? null;
    const table = this.cells();
    let v = table.precision(id, this.mask);
    if (v === undefined) {
      table.fill(this.graph.store, this.target, [id]);
      v = table.precision(id, this.mask);
    }
    return v === undefined ? null : this.orRecord(id, v);
  }

  /** metricValue of a node whose cells are in `slot` and whose outputs the overlay did not change. */
  private cellValue(id: string, slot: number): number | null {
    return this.orRecord(id, this.cells().precisionAt(slot, this.mask));
  }

  /** A value from the cells, or the record's when they cannot tell (NaN). */
  private orRecord(id: string, v: number | null): number | null {
    if (v === null || !Number.isNaN(v)) return v;
    // Cells whose max Python takes in order: the record decides.
    const outputs = this.graph.store.node({ side: 'npu', nodeId: id, ...this.selector })?.outputData;
    return outputs ? (precisionFromMetrics(outputs, this.metrics!)?.precisionIndex ?? null) : null;
  }

  /** Pre-order / execution-order comparisons on `side` (execOrder.ts). */
  order(side: Side): ExecOrder {
    let o = this.orders.get(side);
    if (!o) {
      o = new ExecOrder(() => this.graph.store, side, this.selector, (id) => this.graph.isGroup(side, id));
      this.orders.set(side, o);
    }
    return o;
  }

  /** Ancestors of a node as the store answers them (cached by the graph adapter). */
  path(side: Side, id: string): readonly string[] {
    return this.graph.detail(side, id)?.path ?? [];
  }

  /**
   * The worst table's list for `side` under the overlay: the file's rated nodes in execution order with changed
   * values, unmatched ones taken out, newly matched ones put in their place; with a metric choice every value
   * recomputed. Reading the file's list by id (and, with metrics, every record) goes a slice per request
   * (WorkInProgress → 202) until done; the list is kept.
   */
  rated(side: Side, base: RatedNodes): RatedNodes {
    if (!this.changes(side)) return base;
    const built = this.ratedLists.get(side);
    if (built) return built;
    const list = this.patchRated(side, base, this.ratedPass(side, base));
    this.ratedLists.set(side, list);
    this.passes.delete(side);
    this.bytes += list.order.byteLength + list.values.byteLength + list.added.length * 64;
    return list;
  }

  /** Every node of `side` in pre-order as `store` (this overlay's view) answers it, walked across requests (sideWalk.ts). */
  listed(side: Side, store: GraphStore): SideWalk {
    let walk = this.walks.get(side);
    if (!walk) this.walks.set(side, (walk = new SideWalk(side, this.selector, this.target.relPath)));
    walk.list(store, sliceMs());
    if (!this.walked.has(side)) {
      this.walked.add(side);
      this.bytes += walk.bytes;
    }
    return walk;
  }

  /**
   * The file's rated values as the overlay sees them, by position (NaN: no longer rated), or null when only nodes the
   * file does not rate changed. Continued where the last request stopped.
   */
  private ratedPass(side: Side, base: RatedNodes): Float64Array | null {
    const patches = this.patches[side];
    const metrics = side === 'npu' && this.metrics !== null;
    let pass = this.passes.get(side);
    if (!pass) {
      const rated = [...patches.keys()].some((id) => Number.isFinite(this.graph.summary(side, id)?.precisionIndex ?? NaN));
      if (!rated && !metrics) return null;
      this.passes.set(side, (pass = { next: 0, values: Float64Array.from(base.values) }));
    }
    const stopAt = performance.now() + sliceMs();
    const n = base.values.length;
    let cellsTo = pass.next;
    for (; pass.next < n; pass.next++) {
      if (performance.now() > stopAt) throw new WorkInProgress(this.target.relPath, pass.next, n);
      checkBudget();
      const k = pass.next;
      const id = base.idAt(k);
      const change = patches.get(id);
      if (change && change.precisionIndex !== undefined) {
        pass.values[k] = change.precisionIndex === null ? NaN : change.precisionIndex;
        if (change.matchedNodeLink.length === 0) continue;
      }
      if (metrics) {
        if (k >= cellsTo) {
          cellsTo = Math.min(n, k + CELLS_AHEAD);
          const ahead: string[] = [];
          for (let j = k; j < cellsTo; j++) ahead.push(base.idAt(j));
          this.cells().fill(this.graph.store, this.target, ahead);
        }
        const m = this.metricValue(id);
        if (m !== null) pass.values[k] = m;
      }
    }
    return pass.values;
  }

  /** The file's list with the pass's values, and the nodes only the overlay rates merged in (execution order). */
  private patchRated(side: Side, base: RatedNodes, passed: Float64Array | null): PatchedRated {
    const patches = this.patches[side];
    const values0 = passed ?? base.values;
    const kept: number[] = [];
    for (let k = 0; k < values0.length; k++) if (Number.isFinite(values0[k])) kept.push(k);
    const added: Array<{ id: string; value: number; path: readonly string[] }> = [];
    for (const [id, change] of patches) {
      if (Number.isFinite(this.graph.summary(side, id)?.precisionIndex ?? NaN)) continue;
      if (change.precisionIndex === undefined || change.precisionIndex === null || !Number.isFinite(change.precisionIndex)) continue;
      const m = side === 'npu' && this.metrics ? this.metricValue(id) : null;
      added.push({ id, value: m ?? change.precisionIndex, path: this.path(side, id) });
    }
    const order = this.order(side);
    added.sort((a, b) => order.compare('post', a.path, a.id, b.path, b.id));
    const basePaths = new Map<number, readonly string[]>();
    const basePath = (k: number) => {
      let p = basePaths.get(k);
      if (!p) basePaths.set(k, (p = this.graph.store.node({ side, nodeId: base.idAt(k), ...this.selector })?.path ?? []));
      return p;
    };
    const out = new Int32Array(kept.length + added.length);
    const values = new Float64Array(kept.length + added.length);
    let w = 0;
    let next = 0;
    const copyKept = (until: number) => {
      for (; next < until; next++, w++) {
        out[w] = kept[next];
        values[w] = values0[kept[next]];
      }
    };
    for (let a = 0; a < added.length; a++) {
      // The first kept node after added[a], searched from where the previous one went (they are sorted).
      let lo = next;
      let hi = kept.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (order.compare('post', basePath(kept[mid]), base.idAt(kept[mid]), added[a].path, added[a].id) < 0) lo = mid + 1;
        else hi = mid;
      }
      copyKept(lo);
      out[w] = -(a + 1);
      values[w++] = added[a].value;
    }
    copyKept(kept.length);
    return {
      order: out,
      values,
      added: added.map((a) => a.id),
      idAt: (k) => (out[k] >= 0 ? base.idAt(out[k]) : added[-out[k] - 1].id),
    };
  }
}

/** This request's share of kept work: a slice, within what is left of its budget. */
function sliceMs(): number {
  return Math.max(20, Math.min(SLICE_MS, budgetLeftMs() * 0.8));
}

interface PatchedRated extends RatedNodes {
  /** ≥ 0: position in the file's list; < 0: -(1 + index into `added`). */
  order: Int32Array;
  added: string[];
}

function itemsBytes(items: object): number {
  // A rough size: the items are small string maps; exactness does not matter for an LRU bound.
  return JSON.stringify(items).length * 2;
}
