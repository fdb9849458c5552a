import { parsePyJson, PyJsonError } from '../../../src/core/formats/pyJson.js';
import type { GraphType, Side } from '../../../src/core/api/types.js';
import { GraphFileError } from '../graphStore.js';
import { unreachableForest } from '../unreachableGroup.js';

/**
 * The whole-file reading of a JSON `.vis` (msprobe-format.md §4.3). Issue 4 replaces this with a streamed index;
 * everything that touches the file's text lives here so that swap is one file.
 */

/** A node object exactly as parsed (null-prototype object; keys as in the file). */
export type RawNode = Record<string, unknown>;

export interface VisSide {
  rootId: string;
  /** id → raw node; only object-valued entries (anything else counts as a missing node). */
  nodes: Map<string, RawNode>;
  /** child id → parent id, from walking `subnodes` down from the root (first parent wins). */
  parentOf: Map<string, string>;
  /** The nodes the root does not reach, under their synthetic group (server/store/unreachableGroup.ts); null if none. */
  unreachable: UnreachableSide | null;
}

export interface UnreachableSide {
  /** The group's id. */
  id: string;
  /** Its children, in file order. */
  tops: string[];
  /** Orphan id → its parent inside the group (tops have none). */
  parentOf: Map<string, string>;
}

export interface VisDocument {
  graphType: GraphType;
  sides: Partial<Record<Side, VisSide>>;
  /** The top-level object, for meta keys (`ToolTip`, `Colors`, `MicroSteps`, `task`, `OverflowCheck`). */
  top: Record<string, unknown>;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses and shape-checks a `.vis` text. Throws GraphFileError naming `file` (and line:column for syntax errors). */
export function readVisDocument(text: string, file: string): VisDocument {
  let top: unknown;
  try {
    top = parsePyJson(text, { mode: 'js', file });
  } catch (e) {
    if (e instanceof PyJsonError) throw new GraphFileError(file, `line ${e.line}:${e.column}: ${e.problem}`);
    throw e;
  }
  if (!isObject(top)) throw new GraphFileError(file, 'not a .vis graph: the top level is not a JSON object');

  // `NPU` decides the type, as in the reference viewer (msprobe-format.md §7).
  if ('NPU' in top) {
    return {
      graphType: 'compare',
      sides: { npu: readSide(top.NPU, file, 'NPU'), bench: readSide(top.Bench, file, 'Bench') },
      top,
    };
  }
  if ('root' in top || 'node' in top) return { graphType: 'build', sides: { npu: readSide(top, file, '') }, top };
  throw new GraphFileError(file, 'not a .vis graph: no "NPU" (compare) or "root"/"node" (build) key at the top level');
}

function readSide(value: unknown, file: string, name: string): VisSide {
  const where = name ? `"${name}"` : 'the top level';
  if (!isObject(value)) throw new GraphFileError(file, `${where} is missing or not an object`);
  const { root, node } = value;
  if (typeof root !== 'string') throw new GraphFileError(file, `${where} has no string "root"`);
  if (!isObject(node)) throw new GraphFileError(file, `${where} has no "node" object`);
  const nodes = new Map<string, RawNode>();
  for (const id of Object.keys(node)) {
    const raw = node[id];
    if (isObject(raw)) nodes.set(id, raw);
  }
  if (!nodes.has(root)) throw new GraphFileError(file, `root "${root}" of ${where} is not in its "node" object`);
  const parentOf = walkParents(root, nodes);
  return { rootId: root, nodes, parentOf, unreachable: unreachableSide(root, nodes, parentOf) };
}

function unreachableSide(rootId: string, nodes: Map<string, RawNode>, parentOf: Map<string, string>): UnreachableSide | null {
  const ids = [...nodes.keys()];
  const entryOf = new Map(ids.map((id, e) => [id, e]));
  const forest = unreachableForest({
    size: ids.length,
    isLive: () => true,
    isReachable: (e) => ids[e] === rootId || parentOf.has(ids[e]),
    childrenOf: (e) => subnodeIds(nodes.get(ids[e])!, nodes).map((c) => entryOf.get(c)!),
    hasId: (id) => nodes.has(id),
  });
  if (!forest) return null;
  const orphanParents = new Map<string, string>();
  forest.parent.forEach((p, e) => {
    if (p >= 0) orphanParents.set(ids[e], ids[p]);
  });
  return { id: forest.id, tops: forest.tops.map((e) => ids[e]), parentOf: orphanParents };
}

/**
 * Parents come from `subnodes`, not `upnode`: legacy files carry upnodes that name no node (the Bench root's
 * `"root"`), and the tree the viewer shows is the one `subnodes` describes. Iterative, cycle-safe.
 */
function walkParents(rootId: string, nodes: Map<string, RawNode>): Map<string, string> {
  const parentOf = new Map<string, string>();
  const stack = [rootId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    for (const child of subnodeIds(nodes.get(id)!, nodes)) {
      if (child === rootId || parentOf.has(child)) continue;
      parentOf.set(child, id);
      stack.push(child);
    }
  }
  return parentOf;
}

/**
 * A node's children in execution order: dangling ids (msprobe-format.md §5.3) and repeats are skipped, so the
 * viewer never draws a box it cannot open or two boxes with one id.
 */
export function subnodeIds(raw: RawNode, nodes: Map<string, RawNode>): string[] {
  const list = raw.subnodes;
  if (!Array.isArray(list)) return [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of list) {
    if (typeof id !== 'string' || seen.has(id) || !nodes.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}
