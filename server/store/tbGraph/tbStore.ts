import type { ChildrenResponse, FindResponse, GraphMeta, NodeDetail, NodeSummary, Side, WorstResponse } from '../../../src/core/api/types.js';
import { ROOT_ID, ancestorsOf, type TbHierarchy } from '../../../src/core/tbgraph/hierarchy.js';
import { tbChildren, tbNodeDetail, tbNodeSummary } from '../../../src/core/tbgraph/apiView.js';
import { searchMatcher, type FilterQuery, type SearchQuery } from '../findQuery.js';
import { pageRange, type ChildrenQuery, type GraphStore, type NodeItems } from '../graphStore.js';
import type { RatedNodes, WorstQuery } from '../worstQuery.js';
import type { TbFormat } from './tbFiles.js';

/**
 * A TensorBoard-side graph (event file graph, GraphDef, ONNX) answering the viewer's contract from its hierarchy
 * (src/core/tbgraph/apiView.ts): a build graph with one side, no precision data, so filters and the worst table
 * answer empty; children answers carry the lifted, bundled edges among the children (ChildrenResponse.edges).
 */
export class TbGraphStore implements GraphStore {
  constructor(
    private readonly h: TbHierarchy,
    private readonly named: { file: string; run: string; tag: string; format: TbFormat },
  ) {}

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
      nodeCounts: { npu: this.h.nodes.size },
    };
  }

  children(q: ChildrenQuery): ChildrenResponse | undefined {
    if (q.side !== 'npu') return undefined;
    const id = q.nodeId ?? ROOT_ID;
    const n = this.h.nodes.get(id);
    if (!n) return undefined;
    const [from, to] = pageRange(n.children.length, q.offset, q.limit);
    return tbChildren(this.h, id, from, to - from);
  }

  node(q: { side: Side; nodeId: string }): NodeDetail | undefined {
    const n = q.side === 'npu' ? this.h.nodes.get(q.nodeId) : undefined;
    if (!n) return undefined;
    // The canvas's root is ROOT_ID (meta.roots), so paths start there as an msprobe node's start at its root.
    return { ...tbNodeDetail(this.h, q.nodeId), upnode: n.parent, path: this.pathOf(q.nodeId) };
  }

  private pathOf(id: string): string[] {
    return id === ROOT_ID ? [] : [ROOT_ID, ...ancestorsOf(this.h, id)];
  }

  summaries(q: { side: Side; ids: readonly string[] }): Array<NodeSummary | undefined> {
    return q.ids.map((id) => (q.side === 'npu' && this.h.nodes.has(id) ? tbNodeSummary(this.h, id) : undefined));
  }

  items(q: { side: Side; ids: readonly string[] }): Array<NodeItems | undefined> {
    return q.ids.map((id) => {
      if (q.side !== 'npu' || !this.h.nodes.has(id)) return undefined;
      const { inputData, outputData } = tbNodeDetail(this.h, id);
      return { inputData, outputData };
    });
  }

  /** Node ids containing the text (or matching the `/regex/`), in pre-order like the msprobe stores. */
  search(q: SearchQuery): FindResponse {
    if (q.side !== 'npu') return { total: 0, results: [] };
    const matches = searchMatcher(q.query);
    const results: FindResponse['results'] = [];
    let total = 0;
    const stack = [...(this.h.nodes.get(ROOT_ID)?.children ?? [])].reverse();
    while (stack.length) {
      const id = stack.pop()!;
      const n = this.h.nodes.get(id)!;
      if (matches(id)) {
        total++;
        if (results.length < q.limit) results.push({ ...tbNodeSummary(this.h, id), path: this.pathOf(id) });
      }
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
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
