import type {
  ChildrenResponse,
  ColorBucket,
  FindResponse,
  FoundNode,
  GraphMeta,
  GraphType,
  NodeDetail,
  NodeSummary,
  Side,
  Task,
  WorstResponse,
} from '../../../src/core/api/types.js';
import { matchesFilter, PATH_ROOM, searchMatcher, type FilterQuery, type SearchQuery } from '../findQuery.js';
import { guardStore, pageRange, type ChildrenQuery, type GraphStore, type NodeItems } from '../graphStore.js';
import { ioItems, nodeDetail, nodeSummary, toFiniteNumber, toInt } from './nodeRecord.js';
import { isObject, readVisDocument, subnodeIds, type VisDocument, type VisSide } from './visDocument.js';
import { groupDetail, groupSummary } from '../unreachableGroup.js';
import { sortWorstFirst, worstEnd, type RatedNodes, type WorstQuery } from '../worstQuery.js';

export interface VisJsonStoreOptions {
  /** Shown in errors: the file's path relative to the log dir. */
  file: string;
  run: string;
  tag: string;
}

/**
 * GraphStore over one JSON `.vis` held in memory (issue 2): the simplest reading of the format, kept as the
 * reference the streamed index (server/store/visJsonIndex) is tested against. Throws GraphFileError on bad input.
 */
export class VisJsonStore implements GraphStore {
  private readonly doc: VisDocument;
  private readonly metaValue: GraphMeta;

  constructor(text: string, private readonly options: VisJsonStoreOptions) {
    this.doc = readVisDocument(text, options.file);
    this.metaValue = buildMeta(this.doc, options);
  }

  meta(): GraphMeta {
    return this.metaValue;
  }

  children(q: ChildrenQuery): ChildrenResponse | undefined {
    return guardStore(this.options.file, () => this.childrenOf(q));
  }

  private childrenOf(q: ChildrenQuery): ChildrenResponse | undefined {
    const side = this.doc.sides[q.side];
    if (!side) return undefined;
    const id = q.nodeId ?? side.rootId;
    const group = side.unreachable;
    const raw = side.nodes.get(id);
    if (!raw && id !== group?.id) return undefined;
    const summary = (child: string) => nodeSummary(child, side.nodes.get(child)!, side);
    let children = raw ? subnodeIds(raw, side.nodes).map(summary) : group!.tops.map(summary);
    // Micro steps tag only the root's children (msprobe-format.md §2.10); a child without one shows in every step.
    const micro = q.micro ?? -1;
    if (id === side.rootId && micro !== -1) {
      children = children.filter((c) => c.microStepId === null || c.microStepId === micro);
    }
    if (id === side.rootId && group) children.push(groupSummary(group.id, group.tops.length));
    const [from, to] = pageRange(children.length, q.offset, q.limit);
    return { node: id, children: children.slice(from, to), total: children.length };
  }

  search(q: SearchQuery): FindResponse {
    const matches = searchMatcher(q.query);
    return guardStore(this.options.file, () => this.find(q.side, q.limit, (id) => matches(id)));
  }

  filter(q: FilterQuery): FindResponse {
    return guardStore(this.options.file, () =>
      this.find(q.side, q.limit, (_id, s) => (!q.leaves || s.childCount === 0) && matchesFilter(q, s)),
    );
  }

  /** Matches in execution order (pre-order over the subnodes tree, then unreachable nodes in file order). */
  private find(sideName: Side, limit: number, test: (id: string, s: NodeSummary) => boolean): FindResponse {
    const side = this.doc.sides[sideName];
    const results: FoundNode[] = [];
    let total = 0;
    if (!side) return { total, results };
    let room = PATH_ROOM;
    for (const id of executionOrder(side)) {
      const raw = side.nodes.get(id)!;
      const summary = nodeSummary(id, raw, side);
      if (!test(id, summary)) continue;
      total++;
      if (results.length >= limit || room < 0) continue;
      const path = nodeDetail(id, raw, side, sideName).path;
      // The index store's rule: an answer stops once its paths fill PATH_ROOM.
      room -= path.length + 1;
      if (room >= 0 || results.length === 0) results.push({ ...summary, path });
    }
    return { total, results };
  }

  worst(q: WorstQuery): WorstResponse {
    return guardStore(this.options.file, () => {
      const worst = worstEnd(this.metaValue.task);
      const side = this.doc.sides[q.side];
      const answer: WorstResponse = { total: 0, offset: q.offset, order: q.order, worst, results: [] };
      if (!side) return answer;
      const rated = ratedSummaries(side);
      const values = Float64Array.from(rated, (s) => s.precisionIndex!);
      const order = q.order === 'precision' ? sortWorstFirst(values, worst) : null;
      const [from, to] = pageRange(rated.length, q.offset, q.limit);
      answer.total = rated.length;
      for (let k = from; k < to; k++) {
        const summary = rated[order ? order[k] : k];
        answer.results.push({ ...summary, path: nodeDetail(summary.id, side.nodes.get(summary.id)!, side, q.side).path });
      }
      return answer;
    });
  }

  rated(q: { side: Side }): RatedNodes {
    return guardStore(this.options.file, () => {
      const side = this.doc.sides[q.side];
      const rated = side ? ratedSummaries(side) : [];
      return { values: Float64Array.from(rated, (s) => s.precisionIndex!), idAt: (k) => rated[k].id };
    });
  }

  node(q: { side: Side; nodeId: string }): NodeDetail | undefined {
    return guardStore(this.options.file, () => {
      const side = this.doc.sides[q.side];
      const raw = side?.nodes.get(q.nodeId);
      if (side?.unreachable && q.nodeId === side.unreachable.id) return groupDetail(side.unreachable.id, side.unreachable.tops.length, q.side, side.rootId);
      return side && raw ? nodeDetail(q.nodeId, raw, side, q.side) : undefined;
    });
  }

  summaries(q: { side: Side; ids: readonly string[] }): Array<NodeSummary | undefined> {
    return guardStore(this.options.file, () => {
      const side = this.doc.sides[q.side];
      return q.ids.map((id) => {
        const raw = side?.nodes.get(id);
        return side && raw ? nodeSummary(id, raw, side) : undefined;
      });
    });
  }

  items(q: { side: Side; ids: readonly string[] }): Array<NodeItems | undefined> {
    return guardStore(this.options.file, () => {
      const side = this.doc.sides[q.side];
      return q.ids.map((id) => {
        const raw = side?.nodes.get(id);
        return raw ? { inputData: ioItems(raw.input_data), outputData: ioItems(raw.output_data) } : undefined;
      });
    });
  }

  close(): void {
    // Nothing to release: the text was read before construction.
  }
}

function executionOrder(side: VisSide): string[] {
  const order: string[] = [];
  const stack = [side.rootId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    order.push(id);
    const kids = subnodeIds(side.nodes.get(id)!, side.nodes).filter((c) => side.parentOf.get(c) === id);
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
  }
  for (const id of side.nodes.keys()) if (id !== side.rootId && !side.parentOf.has(id)) order.push(id);
  return order;
}

/** The side's nodes with a precision value, in the order outputs are produced. */
function ratedSummaries(side: VisSide): NodeSummary[] {
  return outputOrder(side)
    .map((id) => nodeSummary(id, side.nodes.get(id)!, side))
    .filter((s) => s.precisionIndex !== null);
}

/** The order outputs are produced: post-order over the subnodes tree, then unreachable nodes in file order. */
function outputOrder(side: VisSide): string[] {
  const order: string[] = [];
  const stack: Array<{ id: string; kids: string[]; next: number }> = [];
  const visit = (id: string) =>
    stack.push({ id, kids: subnodeIds(side.nodes.get(id)!, side.nodes).filter((c) => side.parentOf.get(c) === id), next: 0 });
  visit(side.rootId);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next < top.kids.length) visit(top.kids[top.next++]);
    else order.push(stack.pop()!.id);
  }
  for (const id of side.nodes.keys()) if (id !== side.rootId && !side.parentOf.has(id)) order.push(id);
  return order;
}

const TASKS: readonly Task[] = ['summary', 'md5', 'all', 'structure'];
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

function buildMeta(doc: VisDocument, o: VisJsonStoreOptions): GraphMeta {
  const roots: GraphMeta['roots'] = {};
  const nodeCounts: GraphMeta['nodeCounts'] = {};
  for (const side of ['npu', 'bench'] as const) {
    const s = doc.sides[side];
    if (!s) continue;
    roots[side] = s.rootId;
    nodeCounts[side] = s.nodes.size;
  }
  return visMeta(doc.top, doc.graphType, roots, nodeCounts, o);
}

/** GraphMeta of a `.vis` from its top-level keys (shared with the streamed index, which keeps only those keys). */
export function visMeta(
  top: Record<string, unknown>,
  graphType: GraphType,
  roots: GraphMeta['roots'],
  nodeCounts: GraphMeta['nodeCounts'],
  o: { run: string; tag: string },
): GraphMeta {
  return {
    run: o.run,
    tag: o.tag,
    format: 'vis',
    graphType,
    task: TASKS.includes(top.task as Task) ? (top.task as Task) : '',
    microSteps: Math.max(1, toInt(top.MicroSteps) ?? 1),
    // Files before 2024-12-31 have no OverflowCheck; the reference viewer then treats it as on (§5.1).
    overflowCheck: typeof top.OverflowCheck === 'boolean' ? top.OverflowCheck : true,
    colors: colorBuckets(top.Colors),
    toolTips: toolTips(top.ToolTip),
    steps: [0],
    ranks: [0],
    roots,
    nodeCounts,
  };
}

/**
 * Keys upper-cased (legacy files mix `#ff704d` with `#FFFCF3`), anything that is not `#RRGGBB` dropped: the app
 * puts these into SVG fill attributes.
 */
export function colorBuckets(v: unknown): ColorBucket[] {
  if (!isObject(v)) return [];
  const out: ColorBucket[] = [];
  for (const key of Object.keys(v)) {
    const bucket = v[key];
    if (!HEX_COLOR.test(key) || !isObject(bucket)) continue;
    const value = bucket.value;
    out.push({
      color: key.toUpperCase(),
      value:
        typeof value === 'string'
          ? value
          : Array.isArray(value)
            ? value.map(toFiniteNumber).filter((x): x is number => x !== null)
            : [],
      description: typeof bucket.description === 'string' ? bucket.description : '',
    });
  }
  return out;
}

/** `ToolTip`: a JSON string of column → text (msprobe-format.md §3.10); non-string texts dropped like the viewer. */
export function toolTips(v: unknown): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  let parsed: unknown = v;
  if (typeof v === 'string') {
    try {
      parsed = JSON.parse(v);
    } catch {
      return out;
    }
  }
  if (!isObject(parsed)) return out;
  for (const key of Object.keys(parsed)) {
    if (typeof parsed[key] === 'string') out[key] = parsed[key] as string;
  }
  return out;
}
