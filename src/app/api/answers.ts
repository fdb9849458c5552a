import type {
  ChildrenResponse,
  ColorBucket,
  FindResponse,
  FoundNode,
  GraphEdge,
  GraphFileFormat,
  GraphMeta,
  GraphType,
  NodeDetail,
  NodeSummary,
  RunsResponse,
  Side,
  TagEntry,
  Task,
} from '../../core/api/types.js';
import { checkTbInfo } from './tbAnswer.js';
import { isObj, str, type Obj } from './checkValue.js';

/**
 * Checks answers at the fetch boundary: the server passes through what a (possibly hostile or damaged) file holds,
 * and a value outside the API types (a null id, a fractional step) must not leave the viewer on an empty canvas.
 * Bad entries of a list are dropped, bad scalars coerced to their "absent" value; an answer the viewer cannot use at
 * all (meta without a root, a node record without an id) throws BadAnswerError naming the file.
 */
export class BadAnswerError extends Error {
  constructor(
    /** `run/tag` of the file, as the banner names it. */
    readonly file: string,
    /** What is wrong, in English (like the server's parser details). */
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'BadAnswerError';
  }
}

const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const ints = (v: unknown): number[] => (Array.isArray(v) ? v.filter((n): n is number => isInt(n) && n >= 0) : []);
const finiteOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const SIDES: readonly Side[] = ['npu', 'bench'];
const TASKS: readonly Task[] = ['summary', 'md5', 'all', 'structure', ''];

function object(v: unknown, file: string, what: string): Obj {
  if (!isObj(v)) throw new BadAnswerError(file, `${what} is not an object`);
  return v;
}

export function checkMeta(body: unknown, file: string): GraphMeta {
  const m = object(body, file, 'graph meta');
  const graphType = m.graphType === 'build' || m.graphType === 'compare' ? (m.graphType as GraphType) : null;
  if (!graphType) throw new BadAnswerError(file, `graph type ${JSON.stringify(m.graphType)} is neither build nor compare`);
  const roots: GraphMeta['roots'] = {};
  const nodeCounts: GraphMeta['nodeCounts'] = {};
  for (const side of SIDES) {
    const root = isObj(m.roots) ? str(m.roots[side]) : null;
    if (root) roots[side] = root;
    const count = isObj(m.nodeCounts) ? m.nodeCounts[side] : undefined;
    if (isInt(count) && count >= 0) nodeCounts[side] = count;
  }
  // The canvas starts from the NPU root: without it there is nothing to draw (a missing Bench root only blanks
  // the Bench pane, which the viewer already handles).
  if (!roots.npu) throw new BadAnswerError(file, 'no root node id for the NPU side');
  const toolTips: Record<string, string> = {};
  if (isObj(m.toolTips)) for (const [k, v] of Object.entries(m.toolTips)) if (typeof v === 'string') toolTips[k] = v;
  return {
    run: str(m.run) ?? '',
    tag: str(m.tag) ?? '',
    format: fileFormat(m.format),
    graphType,
    task: TASKS.includes(m.task as Task) ? (m.task as Task) : '',
    microSteps: isInt(m.microSteps) && m.microSteps >= 0 ? m.microSteps : 0,
    overflowCheck: m.overflowCheck === true,
    colors: Array.isArray(m.colors) ? m.colors.filter(isColorBucket) : [],
    toolTips,
    steps: ints(m.steps),
    ranks: ints(m.ranks),
    ...(Array.isArray(m.graphs) ? { graphs: m.graphs.filter((p): p is [number, number] => Array.isArray(p) && p.length === 2 && isInt(p[0]) && isInt(p[1])) } : {}),
    roots,
    nodeCounts,
    ...(typeof m.stamp === 'string' ? { stamp: m.stamp } : {}),
  };
}

const FILE_FORMATS: readonly GraphFileFormat[] = ['vis', 'db', 'tfevents', 'graphdef', 'onnx'];

/** An unknown format is read as `vis`, as before issue 16 added the TensorBoard ones. */
function fileFormat(v: unknown): GraphFileFormat {
  return FILE_FORMATS.includes(v as GraphFileFormat) ? (v as GraphFileFormat) : 'vis';
}

/**
 * An edge bundle as the server sends it (issue 16): named ends, integer counts, string labels, and `inferred` on an
 * msprobe graph's inferred dataflow (drawn in its own style); others are dropped.
 */
function edge(v: unknown): GraphEdge | null {
  if (!isObj(v) || typeof v.from !== 'string' || typeof v.to !== 'string') return null;
  if (!isInt(v.data) || !isInt(v.control)) return null;
  if (!Array.isArray(v.labels) || !v.labels.every((l) => typeof l === 'string')) return null;
  return { from: v.from, to: v.to, data: v.data, control: v.control, labels: v.labels, ...(v.inferred === true ? { inferred: true } : {}) };
}

function isColorBucket(v: unknown): v is ColorBucket {
  return (
    isObj(v) &&
    typeof v.color === 'string' &&
    typeof v.description === 'string' &&
    (typeof v.value === 'string' || (Array.isArray(v.value) && v.value.every((n) => typeof n === 'number')))
  );
}

/** A node summary, or null when it has no usable id (it could be neither drawn nor asked about). */
function summary(v: unknown): NodeSummary | null {
  if (!isObj(v) || typeof v.id !== 'string' || v.id === '') return null;
  return {
    id: v.id,
    nodeType: isInt(v.nodeType) ? v.nodeType : 1,
    precisionIndex: finiteOrNull(v.precisionIndex),
    overflowLevel: str(v.overflowLevel),
    matchedNodeLink: strings(v.matchedNodeLink),
    childCount: isInt(v.childCount) && v.childCount >= 0 ? v.childCount : 0,
    microStepId: isInt(v.microStepId) ? v.microStepId : null,
    ...(v.synthetic === 'unreachable' ? { synthetic: 'unreachable' as const } : {}),
  };
}

/**
 * Children without a usable id are dropped; `total` stays the server's, since later pages are asked for by offset
 * in the server's numbering.
 */
export function checkChildren(body: unknown, file: string): ChildrenResponse {
  const b = object(body, file, 'children answer');
  if (!Array.isArray(b.children)) throw new BadAnswerError(file, 'children answer has no children list');
  const children = b.children.map(summary).filter((s): s is NodeSummary => s !== null);
  const total = isInt(b.total) && b.total >= 0 ? Math.max(b.total, children.length) : undefined;
  const edges = Array.isArray(b.edges) ? b.edges.map(edge).filter((e): e is GraphEdge => e !== null) : undefined;
  // Why an msprobe group asked for its dataflow has none (too many children to read).
  const why = b.dataflowSkipped;
  const skipped = isObj(why) && why.reason === 'tooManyChildren' && isInt(why.limit) ? { reason: 'tooManyChildren' as const, limit: why.limit } : undefined;
  return {
    node: str(b.node) ?? '',
    children,
    ...(total !== undefined ? { total } : {}),
    ...(edges ? { edges } : {}),
    ...(skipped ? { dataflowSkipped: skipped } : {}),
  };
}

export function checkFind(body: unknown, file: string): FindResponse {
  const b = object(body, file, 'search answer');
  const results: FoundNode[] = [];
  for (const r of Array.isArray(b.results) ? b.results : []) {
    const s = summary(r);
    if (s) results.push({ ...s, path: strings((r as Obj).path) });
  }
  return { total: isInt(b.total) ? Math.max(b.total, results.length) : results.length, results };
}

export function checkNode(body: unknown, file: string): NodeDetail {
  const b = object(body, file, 'node record');
  const s = summary(b);
  if (!s) throw new BadAnswerError(file, 'node record without an id');
  const records = (v: unknown) => (isObj(v) ? (Object.fromEntries(Object.entries(v).filter(([, x]) => isObj(x))) as NodeDetail['inputData']) : {});
  const tb = checkTbInfo(b.tb);
  return {
    ...s,
    side: b.side === 'bench' ? 'bench' : 'npu',
    upnode: str(b.upnode),
    path: strings(b.path),
    inputData: records(b.inputData),
    outputData: records(b.outputData),
    stackInfo: strings(b.stackInfo),
    suggestions: isObj(b.suggestions) ? b.suggestions : {},
    parallelMergeInfo: strings(b.parallelMergeInfo),
    matchedDistributed: b.matchedDistributed ?? {},
    ...(tb ? { tb } : {}),
  };
}

export function checkRuns(body: unknown): RunsResponse {
  const b = object(body, 'api/runs', 'file listing');
  const runs = (Array.isArray(b.runs) ? b.runs : []).filter(isObj).flatMap((r) => {
    const run = str(r.run);
    if (run === null) return [];
    const tags = (Array.isArray(r.tags) ? r.tags : []).filter(isObj).flatMap((t): TagEntry[] => {
      const tag = str(t.tag);
      if (tag === null) return [];
      return [
        {
          tag,
          format: fileFormat(t.format),
          ...(isInt(t.step) ? { step: t.step } : {}),
          ...(typeof t.note === 'string' ? { note: t.note } : {}),
          graphType: t.graphType === 'build' || t.graphType === 'compare' ? t.graphType : null,
          sizeBytes: typeof t.sizeBytes === 'number' && t.sizeBytes >= 0 ? t.sizeBytes : 0,
          error: t.error === null || t.error === undefined ? null : String(t.error),
        },
      ];
    });
    return [{ run, tags }];
  });
  return { logdir: str(b.logdir) ?? '', runs };
}
