import type { ConstructJson } from '../formats/constructJson.js';
import type { DumpJson } from '../formats/dumpJson.js';
import { nodeInputOutput, type PreparedEntries } from '../formats/dumpItems.js';
import { eraRules, type FormatEra } from '../formats/formatEra.js';
import type { PyValue } from '../formats/pyJson.js';
import { toPy, type DumpValue } from '../formats/pyJsonNative.js';
import { GraphNode, NodeOp, type Graph } from '../model/graph.js';
import { callSuffixAt, parseCount, swapCallDirection } from './callNames.js';
import { classifyNodeOp } from './nodeOp.js';
import { handleRecompute } from './recompute.js';
import { simplifyStacks } from './stackSimplify.js';

/**
 * construct.json + dump.json + stack.json of one rank → the node hierarchy (msprobe-format.md §2.2–2.9, 2.6).
 * Pure: the caller reads the files. Node order in `nodeMap` is msprobe's `node_map` order, which the JSON writer
 * keeps: root, construct order of creation, then `Apis_Between_Modules.*`, then parameter-gradient nodes.
 */

export const ROOT_ID = 'DefaultModel';
export const NO_FORWARD_STACK = 'This backward node cannot find the forward node and cannot retrieve stack information.';

export interface DumpDirContents {
  construct: ConstructJson;
  /** Either reader's result (entries are read, never changed); its `data` is not read when `entries` is given. */
  dump: Pick<DumpJson<DumpValue>, 'dumpDataDir' | 'data'>;
  /** The entries as node data, made while dump.json was read (instead of `dump.data`). */
  entries?: PreparedEntries;
  stack: ReadonlyMap<string, string[]>;
  /** Directory holding dump.json (real tensors live in its `dump_tensor_data`). */
  dumpDir: string;
  /** dump.json's path, named in errors about its content. */
  dumpFile?: string;
}

export interface BuildGraphOptions {
  era: FormatEra;
  step?: number;
  rank?: number;
}

export interface BuildGraphResult {
  graph: Graph;
  /** msprobe's warnings (unknown node names), one line each. */
  warnings: string[];
}

/** A graph holding only its root, with the dump's paths and the build's step and rank. */
function emptyGraph(src: DumpDirContents, opts: BuildGraphOptions): Graph {
  const root = new GraphNode(ROOT_ID, NodeOp.module);
  return {
    root,
    nodeMap: new Map([[ROOT_ID, root]]),
    dumpDataDir: src.dump.dumpDataDir,
    dumpDir: src.dumpDir,
    step: opts.step ?? 0,
    rank: opts.rank ?? 0,
    megatronMicroStepNumber: src.construct.megatronMicroStepNumber,
  };
}

export function buildGraph(src: DumpDirContents, opts: BuildGraphOptions): BuildGraphResult {
  const rules = eraRules(opts.era);
  const graph = emptyGraph(src, opts);
  const root = graph.root;
  const warnings: string[] = [];
  const stacks = rules.simplifyStack ? simplifyStacks(src.stack) : src.stack;
  const data = src.dump.data;
  const prepared = src.entries;
  const fill = nodeFiller(src);
  const parents = src.construct.parents;
  const microSteps = src.construct.microSteps;

  // §2.4 get-or-create: a new node takes its data, stack and micro step once; the first parent assignment wins.
  const getOrCreate = (id: string, parent: GraphNode | null): GraphNode => {
    let node = graph.nodeMap.get(id);
    if (!node) {
      const { op, known } = classifyNodeOp(id);
      if (!known) warnings.push(`Cannot parse node_name ${id} into NodeOp, default parsing as module.`);
      // The node starts with its prepared items rather than empty maps it would drop at once.
      const d = prepared?.take(id);
      node = new GraphNode(id, op, d?.inputData, d?.outputData);
      graph.nodeMap.set(id, node);
      if (parent) node.attachTo(parent);
      fill(id, node);
      node.stackInfo = stackOf(id, stacks, graph);
      if (microSteps) node.microStepId = microSteps.get(id) ?? 0;
    }
    if (parent) node.attachTo(parent);
    return node;
  };

  for (const [child, parent] of parents) {
    const parentId = parent
      ? rules.inplaceBackwardFix
        ? inplaceBackwardParent(parents, child, parent)
        : parent
      : missingBackwardParent(parents, child);
    getOrCreate(child, parentId ? getOrCreate(parentId, null) : root);
  }
  if (rules.recompute) handleRecompute(graph);
  collectApisBetweenModules(graph);
  addParametersGrad(graph, prepared ? prepared.names() : data.keys(), rules.legacyParametersGradNames, fill);
  return { graph, warnings };
}

/** A node's items (and batch_isend_irecv's P2P info) from its dump entry (prepared items not taken yet). */
function nodeFiller(src: DumpDirContents): (id: string, node: GraphNode) => void {
  const prepared = src.entries;
  const dumpFile = src.dumpFile ?? 'dump.json';
  return (id, node) => {
    if (prepared) {
      const d = prepared.take(id);
      if (d) {
        node.inputData = d.inputData;
        node.outputData = d.outputData;
      }
      if (id.includes('batch_isend_irecv')) node.batchP2pInfo = batchP2pInfo(prepared.entry(id));
      return;
    }
    const entry = src.dump.data.get(id);
    nodeInputOutput(entry, id, dumpFile, node);
    if (id.includes('batch_isend_irecv')) node.batchP2pInfo = batchP2pInfo(entry);
  };
}

/**
 * Only the `Distributed.*` nodes of a rank, in `buildGraph`'s `nodeMap` order (construct.json's, a parent before
 * its child), with their items and P2P info and no hierarchy: what cross-rank matching (§2.12) reads of a rank
 * that another shard builds, without building that rank's graph.
 */
export function buildDistributedNodes(src: DumpDirContents, opts: BuildGraphOptions): Graph {
  const graph = emptyGraph(src, opts);
  const fill = nodeFiller(src);
  const visit = (id: string): void => {
    if (!id.startsWith('Distributed') || graph.nodeMap.has(id)) return;
    const node = new GraphNode(id, classifyNodeOp(id).op);
    graph.nodeMap.set(id, node);
    fill(id, node);
  };
  for (const [child, parent] of src.construct.parents) {
    if (parent) visit(parent);
    visit(child);
  }
  return graph;
}

/** §2.6: the stack.json entry, or for a backward node without one the forward twin's (modules: call 0). */
function stackOf(id: string, stacks: ReadonlyMap<string, string[]>, graph: Graph): string[] {
  const own = stacks.get(id);
  if (own && own.length) return own;
  const at = callSuffixAt(id, 'backward');
  if (at < 0 && !id.endsWith('.backward')) return own ?? [];
  const twinId = at >= 0 ? id.slice(0, at) + '.forward.0' : id.replaceAll('backward', 'forward');
  const twin = graph.nodeMap.get(twinId);
  return twin ? twin.stackInfo : [NO_FORWARD_STACK];
}

/** §2.3 upnode missing: a top-level backward call takes the backward twin of its forward twin's parent. */
function missingBackwardParent(parents: ReadonlyMap<string, string | null>, child: string): string | null {
  if (callSuffixAt(child, 'backward') >= 0) {
    const forwardParent = parents.get(swapCallDirection(child, 'backward'));
    if (forwardParent) {
      const candidate = swapCallDirection(forwardParent, 'forward');
      if (parents.has(candidate)) return candidate;
    }
  }
  if (child.endsWith('.backward')) {
    const forwardParent = parents.get(child.replaceAll('backward', 'forward'));
    if (forwardParent) {
      const candidate = forwardParent.replaceAll('forward', 'backward');
      if (parents.has(candidate)) return candidate;
    }
  }
  return null;
}

/**
 * §2.3 in-place fix (2025-09): hooks on in-place layers can hang a backward module under the wrong parent; when the
 * parent's path differs from the child's, use the forward twin's parent (its backward twin, or the top level).
 */
function inplaceBackwardParent(parents: ReadonlyMap<string, string | null>, child: string, parent: string): string | null {
  if (callSuffixAt(child, 'backward') < 0) return parent;
  const childParts = child.split('.');
  const parentParts = parent.split('.');
  if (childParts.length < 5 || parentParts.length < 4) return parent;
  if (childParts.slice(0, -4).join('.') === parentParts.slice(0, -3).join('.')) return parent;
  const forwardTwin = swapCallDirection(child, 'backward');
  if (!parents.has(forwardTwin)) return parent;
  const forwardParent = parents.get(forwardTwin) ?? null;
  if (!forwardParent) return null;
  const candidate = swapCallDirection(forwardParent, 'forward');
  return parents.has(candidate) ? candidate : parent;
}

/** §2.4 batch_isend_irecv: `{op, peer, group_id}` of each P2POp in `output[0]`. */
function batchP2pInfo(raw: DumpValue | undefined): GraphNode['batchP2pInfo'] {
  const entry = toPy(raw);
  const output = entry instanceof Map ? entry.get('output') : undefined;
  if (!Array.isArray(output) || !Array.isArray(output[0])) return [];
  const out: GraphNode['batchP2pInfo'] = [];
  for (const p of output[0]) {
    if (!(p instanceof Map)) continue;
    const op = p.get('op');
    out.push({ op: typeof op === 'string' ? op : '', peer: p.get('peer') ?? null, groupId: p.get('group_id') ?? null });
  }
  return out;
}

/** §2.8: every run of ≥ 2 consecutive top-level APIs becomes one `Apis_Between_Modules.{k}` node. */
function collectApisBetweenModules(graph: Graph): void {
  const list = graph.root.subnodes.slice();
  const out: GraphNode[] = [];
  let k = 0;
  for (let i = 0; i < list.length; ) {
    if (list[i].op !== NodeOp.functionApi) {
      out.push(list[i++]);
      continue;
    }
    let end = i;
    while (end < list.length && list[end].op === NodeOp.functionApi) end++;
    if (end - i >= 2) {
      const collection = new GraphNode(`Apis_Between_Modules.${k++}`, NodeOp.apiCollection);
      graph.nodeMap.set(collection.id, collection);
      for (let j = i; j < end; j++) {
        collection.subnodes.push(list[j]);
        list[j].upnode = collection;
      }
      collection.upnode = graph.root;
      if (list[i].microStepId !== null) collection.microStepId = list[i].microStepId;
      out.push(collection);
    } else out.push(list[i]);
    i = end;
  }
  graph.root.subnodes.length = 0;
  for (const n of out) graph.root.subnodes.push(n);
}

const PARAMS_GRAD_SUFFIX = /\.parameters_grad(?:\.\d+)?$/;

/**
 * §2.9: parameter gradients (dump keys absent from construct.json) become module nodes appended under the last
 * backward call (largest count) of their module; without such a call they are dropped.
 */
function addParametersGrad(
  graph: Graph,
  names: Iterable<string>,
  legacyNames: boolean,
  fill: (id: string, node: GraphNode) => void,
): void {
  const grads: Array<{ id: string; prefix: string }> = [];
  for (const key of names) {
    if (!key.includes('parameters_grad') || graph.nodeMap.has(key)) continue;
    if (legacyNames) {
      // E2 stripped every occurrence of the suffix to find the module.
      if (key.endsWith('.parameters_grad')) {
        const prefix = key.replaceAll('.parameters_grad', '');
        grads.push({ id: prefix + '.parameters_grad', prefix });
      }
      continue;
    }
    const m = PARAMS_GRAD_SUFFIX.exec(key);
    if (m) grads.push({ id: key, prefix: key.slice(0, m.index) });
  }
  if (grads.length === 0) return;

  const lastBackward = new Map<string, number>(grads.map((g) => [g.prefix, 0]));
  for (const id of graph.nodeMap.keys()) {
    const at = callSuffixAt(id, 'backward');
    if (at < 0) continue;
    const prefix = id.slice(0, at);
    const n = parseCount(id.slice(at + '.backward.'.length));
    if (n !== null && lastBackward.has(prefix) && n > lastBackward.get(prefix)!) lastBackward.set(prefix, n);
  }
  for (const { id, prefix } of grads) {
    const backward = graph.nodeMap.get(`${prefix}.backward.${lastBackward.get(prefix)}`);
    if (!backward || graph.nodeMap.has(id)) continue;
    const node = new GraphNode(id, NodeOp.module);
    graph.nodeMap.set(id, node);
    node.attachTo(backward);
    fill(id, node);
  }
}
