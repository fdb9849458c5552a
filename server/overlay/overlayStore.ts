import type { ChildrenResponse, FindResponse, FoundNode, GraphMeta, NodeDetail, NodeSummary, Side, WorstResponse } from '../../src/core/api/types.js';
import { firstDivergent } from '../store/divergentQuery.js';
import type { FindRequest } from '../store/findPool.js';
import { filterIsOpen, matchesFilter, PATH_ROOM, type FilterQuery, type GraphSelector, type SearchQuery } from '../store/findQuery.js';
import { pageRange, type ChildrenQuery, type GraphStore, type NodeItems } from '../store/graphStore.js';
import { budgetLeftMs, checkBudget, withWorkBudget } from '../store/workBudget.js';
import { worstEnd, WorstFirst, type RatedNodes, type WorstQuery } from '../store/worstQuery.js';
import type { OverlayEntry } from './overlayEntry.js';

/**
 * A GraphStore that answers like the opened file with an overlay laid over it (`overlay=<id>` on graph routes): the
 * changed nodes' links, items and precision index, and with a metric choice the recomputed index, in `/node`,
 * `/children`, search, filter, worst and divergent answers. The file's store does the work; this one patches its
 * answers:
 * - filter: the file's answer (from the find worker, `limit` widened by the number of changed nodes) minus the changed
 *   nodes that no longer qualify, plus those that now do, merged in pre-order (execOrder.ts). Exact at any size.
 * - worst / divergent: the file's rated list with the changed nodes moved (overlayEntry.ts).
 * - with a metric choice, a precision filter walks the side's tree in this thread, a slice per request (202 until
 *   done), and keeps the list (sideWalk.ts: up to 2·10^6 nodes a side; README, "Comparison overlay").
 * - heatmap: the file's own values (an overlay belongs to one rank; the heatmap shows all of them).
 * A distinct object per overlay and store, so the `/children` answer cache (keyed by store) never mixes them.
 */
export class OverlayStore implements GraphStore {
  private readonly worstOrders = new WeakMap<RatedNodes, WorstFirst>();

  constructor(
    readonly base: GraphStore,
    readonly entry: OverlayEntry,
  ) {}

  meta(q?: GraphSelector): GraphMeta {
    return this.base.meta(q);
  }

  children(q: ChildrenQuery): ChildrenResponse | undefined {
    const answer = this.base.children(q);
    if (!answer || !this.entry.changes(q.side)) return answer;
    if (q.side === 'npu') this.prepareMetrics(answer.children);
    return { ...answer, children: answer.children.map((c) => (c.synthetic ? c : this.entry.summary(q.side, c))) };
  }

  node(q: { side: Side; nodeId: string } & GraphSelector): NodeDetail | undefined {
    const d = this.base.node(q);
    return d && !d.synthetic && this.entry.changes(q.side) ? this.entry.detail(q.side, d) : d;
  }

  /**
   * The file's summaries, patched. Under a metric choice the matched NPU nodes' cells are read first, a slice per
   * request (202 meanwhile); once read, any metric subset recolours from them.
   */
  summaries(q: { side: Side; ids: readonly string[] } & GraphSelector): Array<NodeSummary | undefined> {
    const found = this.base.summaries(q);
    if (!this.entry.changes(q.side)) return found;
    if (q.side === 'npu') this.prepareMetrics(found);
    return found.map((s) => (s ? this.entry.summary(q.side, s) : s));
  }

  /** Under a metric choice, the cells of the matched NPU nodes among `nodes`, read in batches (overlayEntry.ts). */
  private prepareMetrics(nodes: ReadonlyArray<NodeSummary | undefined>): void {
    if (!this.entry.metrics) return;
    const matched: string[] = [];
    for (const s of nodes) if (s && !s.synthetic && (this.entry.patches.npu.get(s.id)?.matchedNodeLink ?? s.matchedNodeLink).length > 0) matched.push(s.id);
    this.entry.prepareMetrics(matched);
  }

  items(q: { side: Side; ids: readonly string[] } & GraphSelector): Array<NodeItems | undefined> {
    return this.base.items(q).map((found, k) => {
      const change = this.entry.patches[q.side].get(q.ids[k]);
      return found && change ? { inputData: change.inputData ?? found.inputData, outputData: change.outputData ?? found.outputData } : found;
    });
  }

  search(q: SearchQuery): FindResponse {
    return this.patchFound(q.side, this.base.search(q));
  }

  filter(q: FilterQuery): FindResponse {
    if (!this.entry.changes(q.side)) return this.base.filter(q);
    if (this.walks(q)) return this.walkFilter(q);
    return this.mergeFilter(q, this.base.filter(this.widened(q)));
  }

  worst(q: WorstQuery): WorstResponse {
    if (!this.entry.changes(q.side)) return this.base.worst(q);
    const rated = this.rated(q);
    const worst = worstEnd(this.base.meta(q).task);
    const [from, to] = pageRange(rated.values.length, q.offset, q.limit);
    let byWorst = this.worstOrders.get(rated);
    if (q.order === 'precision' && !byWorst) this.worstOrders.set(rated, (byWorst = new WorstFirst(rated.values, worst)));
    const positions = q.order === 'precision' ? byWorst!.range(from, to) : null;
    const results: FoundNode[] = [];
    for (let k = from; k < to; k++) {
      checkBudget();
      const at = positions ? positions[k - from] : k;
      const d = this.base.node({ side: q.side, nodeId: rated.idAt(at), step: q.step, rank: q.rank });
      if (!d) continue;
      results.push({ ...this.entry.summary(q.side, summaryOf(d)), precisionIndex: rated.values[at], path: d.path });
    }
    return { total: rated.values.length, offset: q.offset, order: q.order, worst, results };
  }

  rated(q: { side: Side } & GraphSelector): RatedNodes {
    return this.entry.rated(q.side, this.base.rated(q));
  }

  /** The file's store belongs to the store cache, which closes it. */
  close(): void {}

  /**
   * A search, filter, worst page or divergent node for a route: the file's own answer from the find worker
   * (`baseFind`, off this thread) patched here, or computed here when the overlay changes what is listed.
   */
  async find(request: FindRequest, baseFind: (r: FindRequest) => Promise<string>): Promise<string> {
    const deadline = performance.now() + Math.min(budgetLeftMs(), 60_000);
    const file = this.entry.target.relPath;
    // Work after the worker's answer runs under what is left of the request's budget.
    const patched = async (r: FindRequest, patch: (base: FindResponse) => FindResponse) => {
      const text = await baseFind(r);
      return withWorkBudget(file, Math.max(1, deadline - performance.now()), () => JSON.stringify(patch(JSON.parse(text) as FindResponse)));
    };
    switch (request.kind) {
      case 'search':
        if (!this.entry.changes(request.query.side)) return baseFind(request);
        return patched(request, (base) => this.patchFound(request.query.side, base));
      case 'filter': {
        const q = request.query;
        if (!this.entry.changes(q.side)) return baseFind(request);
        if (this.walks(q)) return JSON.stringify(this.walkFilter(q));
        return patched({ kind: 'filter', query: this.widened(q) }, (base) => this.mergeFilter(q, base));
      }
      case 'worst':
        if (!this.entry.changes(request.query.side)) return baseFind(request);
        return JSON.stringify(this.worst(request.query));
      case 'divergent':
        if (!this.entry.changes('npu') && !this.entry.changes('bench')) return baseFind(request);
        return JSON.stringify(firstDivergent(this, request.query));
      case 'heatmap':
        return baseFind(request);
    }
  }

  private patchFound(side: Side, answer: FindResponse): FindResponse {
    if (!this.entry.changes(side)) return answer;
    return { ...answer, results: answer.results.map((r) => this.entry.summary(side, r)) };
  }

  /** With a metric choice every NPU value may move: a precision filter cannot start from the file's answer. */
  private walks(q: FilterQuery): boolean {
    return q.side === 'npu' && this.entry.metrics !== null && q.precision.length > 0;
  }

  /** Room for the changed nodes that drop out of the file's answer. */
  private widened(q: FilterQuery): FilterQuery {
    return { ...q, limit: q.limit + this.entry.patches[q.side].size };
  }

  /** The file's filter answer with the changed nodes taken out or merged in (see the class comment). */
  private mergeFilter(q: FilterQuery, base: FindResponse): FindResponse {
    const side = q.side;
    if (filterIsOpen(q)) return { total: base.total, results: base.results.slice(0, q.limit).map((r) => this.entry.summary(side, r)) };
    let total = base.total;
    const leaving = new Set<string>();
    const entering: FoundNode[] = [];
    for (const id of this.entry.patches[side].keys()) {
      checkBudget();
      const was = this.entry.graph.summary(side, id);
      if (!was) continue;
      const now = this.entry.summary(side, was);
      const leafOk = !q.leaves || was.childCount === 0;
      const before = leafOk && matchesFilter(q, was);
      const after = leafOk && matchesFilter(q, now);
      if (before && !after) {
        total--;
        leaving.add(id);
      } else if (!before && after) {
        total++;
        entering.push({ ...summaryOf(now), path: [...this.entry.path(side, id)] });
      }
    }
    const order = this.entry.order(side);
    const pre = (a: FoundNode, b: FoundNode) => order.compare('pre', a.path, a.id, b.path, b.id);
    // Past the file's last listed match other matches may exist that we have not seen: what enters there waits.
    const complete = base.results.length >= base.total;
    const last = base.results[base.results.length - 1];
    const adds = entering.filter((e) => complete || (last !== undefined && pre(e, last) < 0)).sort(pre);
    const kept = base.results.filter((r) => !leaving.has(r.id)).map((r) => this.entry.summary(side, r));
    const results: FoundNode[] = [];
    let a = 0;
    let k = 0;
    while (results.length < q.limit && (a < adds.length || k < kept.length)) {
      if (k >= kept.length || (a < adds.length && pre(adds[a], kept[k]) < 0)) results.push(adds[a++]);
      else results.push(kept[k++]);
    }
    return { total, results };
  }

  /** A filter over the whole side in pre-order, each node as the overlay sees it (the side's list, kept). */
  private walkFilter(q: FilterQuery): FindResponse {
    const walk = this.entry.listed(q.side, this);
    const results: FoundNode[] = [];
    let total = 0;
    let room = PATH_ROOM;
    for (let k = 0; k < walk.length; k++) {
      checkBudget();
      if (!walk.listed(k) || (q.leaves && walk.childCount(k) > 0)) continue;
      if (!matchesFilter(q, { precisionIndex: walk.precisionIndex(k), matchedNodeLink: walk.linkLength(k), overflowLevel: walk.overflowLevel(k) })) continue;
      total++;
      if (results.length < q.limit && room >= walk.pathLength(k) + 1) {
        room -= walk.pathLength(k) + 1;
        results.push({ ...walk.summary(k), path: walk.path(k) });
      }
    }
    return { total, results };
  }
}

/** The summary fields of a record (answers list summaries, not records). */
function summaryOf(d: NodeSummary): NodeSummary {
  const { id, nodeType, precisionIndex, overflowLevel, matchedNodeLink, childCount, microStepId } = d;
  return { id, nodeType, precisionIndex, overflowLevel, matchedNodeLink, childCount, microStepId };
}
