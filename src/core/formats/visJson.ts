import { getPrecisionIndex, md5Result } from '../compare/nodeResults.js';
import type { Graph, GraphNode } from '../model/graph.js';
import { itemsJsonText } from './itemFormat.js';
import {
  JsonFragment,
  knownJsonString,
  LazyObject,
  listJson,
  floatText,
  newlineIndent,
  numberText,
  pyJsonString,
  renderPyJson,
  stringListJson,
  writePyJson,
  type JsonTree,
} from './pyJsonWrite.js';

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

export function visJsonTree(content: VisFileContent, marks?: (mark: DistributedMark) => void): JsonTree {
  const md5Mode = content.task === 'md5';
  const top = new Map<string, JsonTree>();
  const ids = new Map<string, string>();
  const texts: FileTexts = { stack: stackTexts(), links: linkTexts(ids), ids };
  if (content.bench) {
    top.set('NPU', graphTree(content.npu, md5Mode, texts, 'NPU', marks));
    top.set('Bench', graphTree(content.bench, md5Mode, texts, 'Bench', marks));
  } else {
    for (const [k, v] of graphTree(content.npu, md5Mode, texts, null, marks)) top.set(k, v);
  }
  // msprobe writes these only when truthy.
  if (content.toolTip) top.set('ToolTip', content.toolTip);
  if (content.colors) top.set('Colors', content.colors);
  if (content.microSteps) top.set('MicroSteps', content.microSteps);
  if (content.task) top.set('task', content.task);
  top.set('OverflowCheck', content.overflowCheck);
  return top;
}

/**
 * Where a `Distributed.*` node's `matched_distributed` member would go (just after its `data`), for files written
 * before the cross-rank matching of their step is done: `distributedMember` makes the text to insert there.
 */
export interface DistributedMark {
  /** `NPU`/`Bench` in compare files, null in build files. */
  side: 'NPU' | 'Bench' | null;
  nodeId: string;
  /** Character (= byte: the text is ASCII) offset in the file. */
  offset: number;
  /** The node's members' nesting level. */
  level: number;
}

/**
 * Streams the file text (no trailing newline, as `json.dump` writes it). With `marks`, the `Distributed.*` nodes'
 * insertion points are reported (see DistributedMark).
 */
export function writeVisJson(content: VisFileContent, sink: (chunk: string) => void, marks?: (mark: DistributedMark) => void): void {
  writePyJson(visJsonTree(content, marks), 4, sink);
}

/** The `,\n    "matched_distributed": …` text to insert at a mark (the file's indent is 4). */
export function distributedMember(value: unknown, mark: DistributedMark): string {
  return ',' + newlineIndent(4 * mark.level) + '"matched_distributed": ' + renderPyJson(value as JsonTree, 4, mark.level);
}

function graphTree(
  graph: Graph,
  md5Mode: boolean,
  texts: FileTexts,
  side: 'NPU' | 'Bench' | null,
  marks?: (mark: DistributedMark) => void,
): Map<string, JsonTree> {
  return new Map<string, JsonTree>([
    ['root', graph.root.id],
    ['dump_data_dir', graph.dumpDataDir],
    ['node', new LazyObject(() => nodeEntries(graph, md5Mode, texts, side, marks))],
  ]);
}

function* nodeEntries(
  graph: Graph,
  md5Mode: boolean,
  texts: FileTexts,
  side: 'NPU' | 'Bench' | null,
  marks?: (mark: DistributedMark) => void,
): Iterable<[string, JsonTree]> {
  for (const [id, node] of graph.nodeMap) {
    if (!marks || !id.startsWith('Distributed')) {
      yield [id, new JsonFragment((indent, level) => nodeJson(node, md5Mode, texts, indent, level).text)];
      continue;
    }
    let at = 0;
    let inner = 0;
    yield [
      id,
      new JsonFragment(
        (indent, level) => {
          const { text, afterData } = nodeJson(node, md5Mode, texts, indent, level);
          at = afterData;
          inner = level + 1;
          return text;
        },
        (offset) => marks({ side, nodeId: id, offset: offset + at, level: inner }),
      ),
    ];
  }
}

/** JSON texts a file's nodes share: stacks, and node ids (every descendant's matched_node_link lists its ancestors). */
interface FileTexts {
  stack: (lines: string[], indent: number | null, level: number) => string;
  /** matched_node_link lists: exact matching gives both nodes of a pair the same list, rendered once. */
  links: (ids: readonly string[], indent: number | null, level: number) => string;
  ids: Map<string, string>;
}

/** A list of node ids as the writer puts it at `level`, each id's JSON text made once per file. */
function idListJson(ids: readonly string[], known: Map<string, string>, indent: number | null, level: number): string {
  return listJson(ids, (id) => knownJsonString(id, known), indent, level);
}

function linkTexts(ids: Map<string, string>): (list: readonly string[], indent: number | null, level: number) => string {
  const cache = new WeakMap<readonly string[], string>();
  return (list, indent, level) => {
    let text = cache.get(list);
    if (text === undefined) cache.set(list, (text = idListJson(list, ids, indent, level)));
    return text;
  };
}

/**
 * Stacks rendered from their frames' JSON texts, each made once per file: frames repeat across stacks (stack.json's
 * are interned, stackJson.ts), while whole stack texts kept for the file would be one per API when every API has a
 * stack of its own (issue 19).
 */
function stackTexts(): (lines: string[], indent: number | null, level: number) => string {
  const frames = new Map<string, string>();
  return (lines, indent, level) => listJson(lines, (line) => knownJsonString(line, frames), indent, level);
}

/** A node's member keys with the separator before them (`,\n        "node_type": `), per nesting level. */
const MEMBER_KEYS = [
  'node_type',
  'output_data',
  'input_data',
  'upnode',
  'subnodes',
  'matched_node_link',
  'suggestions',
  'stack_info',
  'micro_step_id',
  'data',
  'matched_distributed',
  'parallel_merge_info',
] as const;
type MemberKey = (typeof MEMBER_KEYS)[number];
const memberPrefixes = new Map<string, Record<MemberKey, string>>();

function memberPrefixesAt(indent: number | null, inner: number): Record<MemberKey, string> {
  const sep = indent === null ? ', "' : ',' + newlineIndent(indent * inner) + '"';
  let prefixes = memberPrefixes.get(sep);
  if (!prefixes) {
    prefixes = {} as Record<MemberKey, string>;
    for (const k of MEMBER_KEYS) prefixes[k] = sep + k + '": ';
    memberPrefixes.set(sep, prefixes);
  }
  return prefixes;
}

/**
 * One node object, as `json.dumps(indent)` writes it at `level` (`{id, node_type, output_data, input_data, upnode,
 * subnodes, matched_node_link, suggestions, stack_info, [micro_step_id], data, [matched_distributed],
 * [parallel_merge_info]}`), straight to text: the writer's generic walk would need a Map per node. Texts are
 * joined from as few pieces as possible (each member's separator and key are one string): the file is a rope of
 * them until it is written, and every piece costs an allocation and a step when it is copied out.
 */
function nodeJson(
  node: GraphNode,
  md5Mode: boolean,
  texts: FileTexts,
  indent: number | null,
  level: number,
): { text: string; afterData: number } {
  const inner = level + 1;
  const key = memberPrefixesAt(indent, inner);
  const opts = { era: 'vis202507' as const, md5Mode };
  let out = (indent === null ? '{"id": ' : '{' + newlineIndent(indent * inner) + '"id": ') + pyJsonString(node.id);
  out += key.node_type + numberText(node.op);
  out += key.output_data + itemsJsonText(node.outputData, node.id, opts, indent, inner);
  out += key.input_data + itemsJsonText(node.inputData, node.id, opts, indent, inner);
  out += key.upnode + (node.upnode ? knownJsonString(node.upnode.id, texts.ids) : '"None"');
  out += key.subnodes + listJson(node.subnodes, (n) => knownJsonString(n.id, texts.ids), indent, inner);
  out += key.matched_node_link + texts.links(node.matchedNodeLink, indent, inner);
  out += key.suggestions + '{}';
  out += key.stack_info + texts.stack(node.stackInfo, indent, inner);
  if (node.microStepId !== null) out += key.micro_step_id + numberText(node.microStepId);
  out += key.data + nodeDataJson(node, indent, inner);
  const afterData = out.length;
  if (isNonEmpty(node.matchedDistributed)) {
    out += key.matched_distributed + renderPyJson(node.matchedDistributed as JsonTree, indent, inner);
  }
  if (node.parallelMergeInfo.length) out += key.parallel_merge_info + stringListJson(node.parallelMergeInfo, indent, inner);
  return { text: out + (indent === null ? '}' : newlineIndent(indent * level) + '}'), afterData };
}

/**
 * The node's `data` object in msprobe's insertion order: `precision_index` and md5 mode's `Result` (set by the
 * comparison), then `overflow_level` (`-oc`); the index keeps Python's int vs float (`1` vs `1.0`). Written
 * directly, as the writer would write such a dict at `level`: every node has one.
 */
export function nodeDataJson(node: GraphNode, indent: number | null, level: number): string {
  const index = getPrecisionIndex(node);
  const result = md5Result(node);
  const overflow = node.data.overflowLevel;
  if (index === undefined && result === undefined && overflow === undefined) return '{}';
  const sep = indent === null ? ', ' : ',' + newlineIndent(indent * (level + 1));
  let out = '';
  if (index !== undefined) out += '"precision_index": ' + (typeof index === 'bigint' ? index.toString() : floatText(index));
  if (result !== undefined) out += (out ? sep : '') + '"Result": ' + pyJsonString(result);
  if (overflow !== undefined) out += (out ? sep : '') + '"overflow_level": ' + pyJsonString(overflow);
  return indent === null ? '{' + out + '}' : '{' + newlineIndent(indent * (level + 1)) + out + newlineIndent(indent * level) + '}';
}

function isNonEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return Boolean(v);
}
