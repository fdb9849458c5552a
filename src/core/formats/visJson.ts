import { getPrecisionIndex, md5Result } from '../compare/nodeResults.js';
import type { Graph, GraphNode } from '../model/graph.js';
import { itemsJson } from './itemFormat.js';
import { JsonFragment, LazyObject, PyFloat, renderPyJson, writePyJson, type JsonTree } from './pyJsonWrite.js';

/**
 * The JSON `.vis` file of the last JSON era (msprobe-format.md §4.3, E2 as of mid 2025): `json.dumps(indent=4)`
 * of `{root, dump_data_dir, node, …}` (build) or `{NPU, Bench, ToolTip, Colors, MicroSteps, task, OverflowCheck}`
 * (compare). Every node of `nodeMap` is written, orphans included, in `nodeMap` order.
 */
export interface VisFileContent {
  npu: Graph;
  /** Present for compare runs. */
  bench?: Graph | null;
  /** The `ToolTip` JSON string (compare). */
  toolTip?: string | null;
  /** `Colors` (compare). */
  colors?: JsonTree | null;
  microSteps: number;
  /** '' for build runs. */
  task: string;
  overflowCheck: boolean;
}

export function visJsonTree(content: VisFileContent): JsonTree {
  const md5Mode = content.task === 'md5';
  const top = new Map<string, JsonTree>();
  if (content.bench) {
    top.set('NPU', graphTree(content.npu, md5Mode));
    top.set('Bench', graphTree(content.bench, md5Mode));
  } else {
    for (const [k, v] of graphTree(content.npu, md5Mode)) top.set(k, v);
  }
  // msprobe writes these only when truthy.
  if (content.toolTip) top.set('ToolTip', content.toolTip);
  if (content.colors) top.set('Colors', content.colors);
  if (content.microSteps) top.set('MicroSteps', content.microSteps);
  if (content.task) top.set('task', content.task);
  top.set('OverflowCheck', content.overflowCheck);
  return top;
}

/** Streams the file text (no trailing newline, as `json.dump` writes it). */
export function writeVisJson(content: VisFileContent, sink: (chunk: string) => void): void {
  writePyJson(visJsonTree(content), 4, sink);
}

function graphTree(graph: Graph, md5Mode: boolean): Map<string, JsonTree> {
  return new Map<string, JsonTree>([
    ['root', graph.root.id],
    ['dump_data_dir', graph.dumpDataDir],
    ['node', new LazyObject(() => nodeEntries(graph, md5Mode))],
  ]);
}

function* nodeEntries(graph: Graph, md5Mode: boolean): Iterable<[string, JsonTree]> {
  const stackJson = stackFragments();
  for (const [id, node] of graph.nodeMap) yield [id, nodeTree(node, md5Mode, stackJson)];
}

/** Stacks are shared arrays (interned stack.json entries, backward twins): each is rendered once per file. */
function stackFragments(): (lines: string[]) => JsonTree {
  const cache = new Map<string[], JsonFragment>();
  return (lines) => {
    if (lines.length <= 1) return lines;
    let fragment = cache.get(lines);
    if (!fragment) {
      let text: string | undefined;
      fragment = new JsonFragment((indent, level) => (text ??= renderPyJson(lines, indent, level)));
      cache.set(lines, fragment);
    }
    return fragment;
  };
}

function nodeTree(node: GraphNode, md5Mode: boolean, stackJson: (lines: string[]) => JsonTree): JsonTree {
  const opts = { era: 'vis202507' as const, md5Mode };
  const out = new Map<string, JsonTree>([
    ['id', node.id],
    ['node_type', node.op],
    ['output_data', itemsJson(node.outputData, node.id, opts)],
    ['input_data', itemsJson(node.inputData, node.id, opts)],
    ['upnode', node.upnode ? node.upnode.id : 'None'],
    ['subnodes', node.subnodes.map((n) => n.id)],
    ['matched_node_link', node.matchedNodeLink],
    ['suggestions', {}],
    ['stack_info', stackJson(node.stackInfo)],
  ]);
  if (node.microStepId !== null) out.set('micro_step_id', node.microStepId);
  out.set('data', nodeDataTree(node));
  if (isNonEmpty(node.matchedDistributed)) out.set('matched_distributed', node.matchedDistributed as JsonTree);
  if (node.parallelMergeInfo.length) out.set('parallel_merge_info', node.parallelMergeInfo);
  return out;
}

/**
 * The node's `data` object in msprobe's insertion order: `precision_index` and md5 mode's `Result` (set by the
 * comparison), then `overflow_level` (`-oc`). The index keeps Python's int vs float (`1` vs `1.0`).
 */
export function nodeDataTree(node: GraphNode): Map<string, JsonTree> {
  const data = new Map<string, JsonTree>();
  const index = getPrecisionIndex(node);
  if (index !== undefined) data.set('precision_index', typeof index === 'bigint' ? index : new PyFloat(index));
  const result = md5Result(node);
  if (result !== undefined) data.set('Result', result);
  if (node.data.overflowLevel !== undefined) data.set('overflow_level', node.data.overflowLevel);
  return data;
}

function isNonEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return Boolean(v);
}
