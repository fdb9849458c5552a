import type { ChildrenResponse, FindResponse, GraphMeta, NodeDetail, NodeSummary, Side, WorstResponse } from '../../../src/core/api/types.js';
import { ROOT_ID } from '../../../src/core/tbgraph/hierarchy.js';
import { tbChildren, tbNodeDetail, tbSummaryAt } from '../../../src/core/tbgraph/apiView.js';
import { DetailsPending, type TbView } from '../../../src/core/tbgraph/packed.js';
import { searchMatcher, type FilterQuery, type SearchQuery } from '../findQuery.js';
import { GraphFileError, pageRange, type ChildrenQuery, type GraphStore, type NodeItems } from '../graphStore.js';
import { WorkInProgress } from '../workBudget.js';
import type { RatedNodes, WorstQuery } from '../worstQuery.js';
import type { TbFormat } from './tbFiles.js';

/**
 * A TensorBoard-side graph (event file graph, GraphDef, ONNX) answering the viewer's contract from its hierarchy
 * (src/core/tbgraph/apiView.ts): a build graph with one side, no precision data, so filters and the worst table
 * answer empty; children answers carry the lifted, bundled edges among the children (ChildrenResponse.edges).
 */
export class TbGraphStore implements GraphStore {
  constructor(
    private readonly v: TbView,
    private readonly named: { file: string; run: string; tag: string; format: TbFormat },
  ) {}

  /** The reader's non-fatal problems (src/core/tbgraph/opGraph.ts TbGraph.problems), for the listing's note. */
  notes(): readonly string[] {
    return this.v.p.problems;
  }

  meta(): GraphMeta {
    return {
      run: this.named.run,
      tag: this.named.tag,
      format: this.named.format,
      graphType: 'build',
      task: '',
      microSteps: 0,
      overflowCheck: false,
      colors: [],
      toolTips: {},
      steps: [0],
      ranks: [0],
      roots: { npu: ROOT_ID },
      nodeCounts: { npu: this.v.size },
    };
  }

  children(q: ChildrenQuery): ChildrenResponse | undefined {
    if (q.side !== 'npu') return undefined;
    const id = q.nodeId ?? ROOT_ID;
    const i = this.v.indexOf(id);
    if (i < 0) return undefined;
    const [from, to] = pageRange(this.v.children(i).length, q.offset, q.limit);
    return tbChildren(this.v, id, from, to - from);
  }

  node(q: { side: Side; nodeId: string }): NodeDetail | undefined {
    const i = q.side === 'npu' ? this.v.indexOf(q.nodeId) : -1;
    if (i < 0) return undefined;
    const parent = this.v.parent(i);
    // The canvas's root is ROOT_ID (meta.roots), so paths start there as an msprobe node's start at its root.
    return { ...this.detail(q.nodeId), upnode: parent < 0 ? null : this.v.id(parent), path: this.pathOf(i) };
  }

  /** Op details arrive from the decoding worker after the structure (tbCache.ts): meanwhile "in progress" (202). */
  private detail(id: string) {
    try {
      return tbNodeDetail(this.v, id);
    } catch (e) {
      if (e instanceof DetailsPending) throw new WorkInProgress(this.named.file, 0, 1);
      if (e instanceof Error && !(e instanceof GraphFileError)) throw new GraphFileError(this.named.file, e.message);
      throw e;
    }
  }

  private pathOf(i: number): string[] {
    return i === 0 ? [] : [ROOT_ID, ...this.v.ancestors(i).map((a) => this.v.id(a))];
  }

  summaries(q: { side: Side; ids: readonly string[] }): Array<NodeSummary | undefined> {
    return q.ids.map((id) => {
      const i = q.side === 'npu' ? this.v.indexOf(id) : -1;
      return i < 0 ? undefined : tbSummaryAt(this.v, i, id);
    });
  }

  items(q: { side: Side; ids: readonly string[] }): Array<NodeItems | undefined> {
    return q.ids.map((id) => {
      if (q.side !== 'npu' || this.v.indexOf(id) < 0) return undefined;
      const { inputData, outputData } = this.detail(id);
      return { inputData, outputData };
    });
  }

  /** Node ids containing the text (or matching the `/regex/`), in pre-order like the msprobe stores. */
  search(q: SearchQuery): FindResponse {
    if (q.side !== 'npu') return { total: 0, results: [] };
    const matches = searchMatcher(q.query);
    const results: FindResponse['results'] = [];
    let total = 0;
    // Nodes are packed in pre-order from the root (packed.ts): index order is the walk's order.
    for (let i = 1; i < this.v.size; i++) {
      const id = this.v.id(i);
      if (matches(id)) {
        total++;
        if (results.length < q.limit) results.push({ ...tbSummaryAt(this.v, i, id), path: this.pathOf(i) });
      }
    }
    return { total, results };
  }

  /** No precision, overflow or matching data in these graphs: nothing passes a filter. */
  filter(_q: FilterQuery): FindResponse {
    return { total: 0, results: [] };
  }

  worst(q: WorstQuery): WorstResponse {
    return { total: 0, offset: q.offset, order: q.order, worst: 'high', results: [] };
  }

  rated(): RatedNodes {
    return { values: new Float64Array(0), idAt: () => '' };
  }

  close(): void {}
}
