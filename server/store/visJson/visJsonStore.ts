import type { ChildrenResponse, ColorBucket, GraphMeta, NodeDetail, Side, Task } from '../../../src/core/api/types.js';
import type { GraphStore } from '../graphStore.js';
import { nodeDetail, nodeSummary, toFiniteNumber, toInt } from './nodeRecord.js';
import { isObject, readVisDocument, subnodeIds, type VisDocument } from './visDocument.js';

export interface VisJsonStoreOptions {
  /** Shown in errors: the file's path relative to the log dir. */
  file: string;
  run: string;
  tag: string;
}

/** GraphStore over one JSON `.vis` held in memory (issue 2). The constructor throws GraphFileError on bad input. */
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

  children(q: { side: Side; nodeId?: string; micro?: number }): ChildrenResponse | undefined {
    const side = this.doc.sides[q.side];
    if (!side) return undefined;
    const id = q.nodeId ?? side.rootId;
    const raw = side.nodes.get(id);
    if (!raw) return undefined;
    let children = subnodeIds(raw, side.nodes).map((child) => nodeSummary(child, side.nodes.get(child)!, side));
    // Micro steps tag only the root's children (msprobe-format.md §2.10); a child without one shows in every step.
    const micro = q.micro ?? -1;
    if (id === side.rootId && micro !== -1) {
      children = children.filter((c) => c.microStepId === null || c.microStepId === micro);
    }
    return { node: id, children };
  }

  node(q: { side: Side; nodeId: string }): NodeDetail | undefined {
    const side = this.doc.sides[q.side];
    const raw = side?.nodes.get(q.nodeId);
    return side && raw ? nodeDetail(q.nodeId, raw, side, q.side) : undefined;
  }

  close(): void {
    // Nothing to release: the text was read before construction. Issue 4's streamed store holds a handle here.
  }
}

const TASKS: readonly Task[] = ['summary', 'md5', 'all', 'structure'];
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

function buildMeta(doc: VisDocument, o: VisJsonStoreOptions): GraphMeta {
  const { top } = doc;
  const roots: GraphMeta['roots'] = {};
  const nodeCounts: GraphMeta['nodeCounts'] = {};
  for (const side of ['npu', 'bench'] as const) {
    const s = doc.sides[side];
    if (!s) continue;
    roots[side] = s.rootId;
    nodeCounts[side] = s.nodes.size;
  }
  return {
    run: o.run,
    tag: o.tag,
    format: 'vis',
    graphType: doc.graphType,
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
function colorBuckets(v: unknown): ColorBucket[] {
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
function toolTips(v: unknown): Record<string, string> {
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
