/**
 * The HTTP contract between `server/` and `src/app/`. Both sides import these types, so a field renamed here
 * breaks the build on both ends instead of silently at run time. Field names are camelCase; msprobe's own
 * snake_case names survive only inside `inputData` / `outputData` items, which are shown verbatim.
 */

export type Side = 'npu' | 'bench';
export type GraphType = 'build' | 'compare';
/** msprobe's `task` string as written into the file: summary | md5 | all (real tensors) | structure, or '' for builds. */
export type Task = 'summary' | 'md5' | 'all' | 'structure' | '';

/** `GET /api/runs` */
export interface RunsResponse {
  logdir: string;
  runs: RunEntry[];
}
export interface RunEntry {
  /** Directory path relative to the log dir, '/'-separated; '.' for the log dir itself. */
  run: string;
  tags: TagEntry[];
}
/**
 * msprobe files (`vis`, `db`) and, issue 16, TensorBoard-side graphs: `tfevents` (one tag per graph record of an event
 * file), `graphdef` (`.pb` / `.pbtxt`), `onnx`.
 */
export type GraphFileFormat = 'vis' | 'db' | 'tfevents' | 'graphdef' | 'onnx';

export interface TagEntry {
  /**
   * File name without `.vis` / `.vis.db`; a GraphDef / ONNX file's whole name; an event file's graph
   * `<file name>#<graph tag>` (`graph_def`, `graph_def_1`…).
   */
  tag: string;
  format: GraphFileFormat;
  /** An event file's graph: the step of its record. */
  step?: number;
  /**
   * A TensorBoard-side graph that opens with a problem its reader noted (a newer ONNX IR version, an input naming no
   * node), known once it has been opened: one line naming the file.
   */
  note?: string;
  /**
   * Issue 19: the shard `.vis.db` files of one `graph --shard` build in this run, listed as this one graph: the
   * build's shard count, how many of them are served, and the union of their steps and ranks.
   */
  shards?: { count: number; members: number; steps: number[]; ranks: number[] };
  /** null while unknown (not yet opened) or when the file could not be read. */
  graphType: GraphType | null;
  sizeBytes: number;
  /** A one-line problem with this file (it stays listed so the user sees why it cannot open). */
  error: string | null;
}

/** One colour bucket as the file defines it (`Colors` / `node_colors`). `value` is `[lo, hi]`, `[]` or legacy strings. */
export interface ColorBucket {
  color: string;
  value: number[] | string;
  description: string;
}

/** `GET /api/graph/meta?run&tag` */
export interface GraphMeta {
  run: string;
  tag: string;
  format: GraphFileFormat;
  graphType: GraphType;
  task: Task;
  microSteps: number;
  overflowCheck: boolean;
  colors: ColorBucket[];
  /** Column name → explanation, decoded from the file's ToolTip JSON string (non-string values dropped). */
  toolTips: Record<string, string>;
  steps: number[];
  ranks: number[];
  /**
   * `.vis.db` only: the step × rank pairs that hold a graph. tb_config's lists may promise more (a rank that wrote
   * nothing at a step), so the pickers offer only these (issue 14 item 5).
   */
  graphs?: Array<[step: number, rank: number]>;
  /** Root node id per side (compare files have both). */
  roots: Partial<Record<Side, string>>;
  nodeCounts: Partial<Record<Side, number>>;
  /**
   * The file version this answer describes (size, mtime, inode; a `.vis.db`'s live WAL too), set by the meta route.
   * Saving a matched file sends it back and is answered 409 when the file changed since (src/core/api/overlay.ts).
   */
  stamp?: string;
}

/** The compact record the graph canvas needs for one node. Everything else comes from `/api/graph/node`. */
export interface NodeSummary {
  id: string;
  /** msprobe node_type: 0 module, 1 api, 8 fusion collection, 9 api collection. */
  nodeType: number;
  /** null when the node carries no precision_index (unmatched, bench side, build). NaN in the file → null. */
  precisionIndex: number | null;
  overflowLevel: string | null;
  /** Counterpart path on the other side; last element is the counterpart id; [] when unmatched. */
  matchedNodeLink: string[];
  childCount: number;
  microStepId: number | null;
  /**
   * Set only on a group the server adds, which is no node of the file: 'unreachable' = the side's nodes its root
   * does not reach (server/store/unreachableGroup.ts).
   */
  synthetic?: 'unreachable';
}

/** `GET /api/graph/children?run&tag&side&node&micro&offset&limit&step&rank` */
export interface ChildrenResponse {
  node: string;
  /** `children[0]` is child number `offset` (default 0) of the node; at most `limit` of them. */
  children: NodeSummary[];
  /** All children of the node (after the micro filter), whatever the page. */
  total?: number;
  /**
   * TensorBoard-side graphs (issue 16): the dataflow edges among all the node's children (not only this page), each
   * lifted to the children containing its ends and parallel ones bundled with counts, for the group's dagre layout.
   * msprobe graphs carry no edges: asked with `dataflow=1`, they answer the edges inferred among all the node's
   * children (src/core/dataflow/inferEdges.ts, `inferred: true`), else none.
   */
  edges?: GraphEdge[];
  /** `dataflow=1` on an msprobe graph whose node has more children than the inference reads: why `edges` is empty. */
  dataflowSkipped?: { reason: 'tooManyChildren'; limit: number };
}

/** A bundle of dataflow edges between two sibling nodes (src/core/tbgraph/hierarchy.ts TbMetaEdge). */
export interface GraphEdge {
  from: string;
  to: string;
  /** Data edges bundled here. */
  data: number;
  /** Control dependencies (`^x` inputs) bundled here: drawn dashed. */
  control: number;
  /** Up to 3 distinct dtype[shape] labels of the data edges. */
  labels: string[];
  /**
   * msprobe graphs' optional dataflow layer (issue 16): not read from the file but inferred from matching output and
   * input fingerprints (src/core/dataflow/inferEdges.ts), so drawn in its own dotted style and named so in the legend.
   */
  inferred?: boolean;
}

/** One formatted input/output item exactly as stored in the file (all values are strings in msprobe output). */
export type IoItem = Record<string, unknown>;

/** `GET /api/graph/node?run&tag&side&node` */
export interface NodeDetail extends NodeSummary {
  side: Side;
  upnode: string | null;
  /** Ancestor ids from the root down to the parent (empty for the root). */
  path: string[];
  inputData: Record<string, IoItem>;
  outputData: Record<string, IoItem>;
  stackInfo: string[];
  suggestions: Record<string, unknown>;
  parallelMergeInfo: string[];
  matchedDistributed: unknown;
  /** TensorBoard-side graphs only (issue 16): what TensorBoard's node info shows. */
  tb?: TbNodeInfo;
}

/** A TensorBoard / ONNX node's own facts (src/core/tbgraph/apiView.ts). */
export interface TbNodeInfo {
  label: string;
  kind: 'root' | 'scope' | 'series' | 'op';
  op: string | null;
  /** ONNX operator domain ('' = ai.onnx); null for GraphDef. */
  domain: string | null;
  device: string | null;
  /** `value` is cut at 1,024 characters by the server (`truncated`, `fullSize` = the whole text's length). */
  attrs: Array<{ key: string; value: string; fullSize: number; truncated: boolean }>;
  role: 'input' | 'output' | 'arg' | 'ret' | null;
  calls: string[];
  opCount: number;
  /** The event file's `tagged_run_metadata` step stats for this node, one per record that has it. */
  runStats?: TbRunStats[];
}

/** One node's execution record in a RunMetadata (src/core/formats/tb/graphDef.ts TbNodeStats), with its record's tag and step. */
export interface TbRunStats {
  tag: string;
  step: number;
  device: string;
  startMicros: number;
  /** op_end_rel − op_start_rel, the op's own compute time. */
  opMicros: number;
  /** all_end_rel: from scheduling to the end of the node. */
  allMicros: number;
  memory: Array<{ allocator: string; totalBytes: number; peakBytes: number; liveBytes: number }>;
  outputs: Array<{ slot: number; dtype: string; shape: Array<number | string> | null }>;
  timelineLabel: string;
}

export interface ApiError {
  error: string;
}

/**
 * Graph routes (`meta`, `children`, `node`, `search`, `filter`) answer 202 with this body while a large `.vis` is
 * being indexed for the first time; the client polls until it gets 200. `step` / `rank` query parameters select the
 * graph inside a `.vis.db` (default: the first of meta.steps / meta.ranks).
 */
export interface IndexingResponse {
  indexing: { file: string; bytesRead: number; bytesTotal: number; percent: number };
}

/** A node found by search or filter, with its ancestors so the viewer can reveal it. */
export interface FoundNode extends NodeSummary {
  /** Ancestor ids from the root down to the parent. */
  path: string[];
}

/**
 * `GET /api/graph/search?run&tag&side&q&limit&step&rank` — case-insensitive substring match on node ids, in
 * execution (pre-order) order. `GET /api/graph/filter?run&tag&side&precision=lo-hi,lo-hi&unmatched=1&
 * overflow=medium,high,critical&leaves=1&limit&step&rank` — nodes whose precision index falls in any bucket
 * (lo <= v < hi, v == hi allowed when hi == 1, [x,x] exact), or unmatched, or at one of the overflow levels.
 */
export interface FindResponse {
  total: number;
  /** At most `limit` (default 500) results; `total` counts all matches. */
  results: FoundNode[];
}

/**
 * `GET /api/graph/worst?run&tag&side&offset&limit&order=precision|execution&step&rank` — every node of the side
 * with a finite precision value: `precision` = worst first (ties in execution order), `execution` = the order outputs
 * are produced (post-order: a module after its last child). Paged: `results[0]` is number `offset` of `total`.
 */
export interface WorstResponse {
  total: number;
  offset: number;
  order: 'precision' | 'execution';
  /** Which end of the scale is worst: `low` for md5 (0 = some md5 differs), `high` otherwise. */
  worst: 'high' | 'low';
  /** At most `limit` (default 100) nodes, each with its ancestors. */
  results: FoundNode[];
}

/**
 * `GET /api/graph/heatmap?run&tag&format&step&rankOffset&rankLimit` (issue 14): one window of a run's ranks × top-level
 * modules (the NPU root's children, matched across ranks by name). A `.vis.db` gives every rank of the step; a
 * per-rank `.vis` gives the run's files of the same command and step (msprobe-format.md §4.4). Rows are the ranks in
 * rank order; an answer holds rows [rankOffset, rankOffset + rows.length) of `totalRanks` (at most
 * HEATMAP_MAX_RANK_LIMIT, default HEATMAP_DEFAULT_RANK_LIMIT), so a client asks only for the rows it shows.
 */
export interface HeatmapResponse {
  step: number;
  /** Which end of the scale is worst: `low` for md5, `high` otherwise (as WorstResponse). */
  worst: 'high' | 'low';
  /** The file's buckets that colour the cells. */
  colors: ColorBucket[];
  /** Rows of the whole heatmap (ranks of the step, or rank files of the run). */
  totalRanks: number;
  /** Row number of `rows[0]`. */
  rankOffset: number;
  /** This window's columns, once: first-seen execution order over its rows; rows refer to them by index. */
  modules: string[];
  /** Root children past the column cap, not shown. */
  moreModules: number;
  rows: HeatmapRow[];
  /** Some rows were not read yet (state `pending`): ask again for them. */
  pending: boolean;
}
export interface HeatmapRow {
  rank: number;
  /** The file holding that rank, as the graph routes name it. */
  tag: string;
  format: 'vis' | 'db';
  state: 'ok' | 'pending' | 'error';
  /** One line when `state` is `error`. */
  error?: string;
  /**
   * `ok` rows: one entry per column of `modules`, the worst finite precision_index in the module's subtree (null =
   * none rated), with no more digits than keep its colour bucket and its 4-digit display.
   */
  values?: Array<number | null>;
  /** `ok` rows: columns (indexes into `modules`) this rank has no such module; omitted when none. */
  absent?: number[];
}
/** Rows one heatmap answer holds at most, and when `rankLimit` is not given. */
export const HEATMAP_MAX_RANK_LIMIT = 512;
export const HEATMAP_DEFAULT_RANK_LIMIT = 128;

/**
 * `GET /api/graph/divergent?run&tag&format&step&rank` (issue 14): the first NPU node, in the order outputs are
 * produced, whose precision value is in the worst bucket present while its inputs, scored by the same rule, are not
 * (src/core/compare/divergence.ts). Nodes in that bucket only through msprobe's NaN rule on statistics identical on
 * both sides are passed over and listed.
 */
export interface DivergentResponse {
  worst: 'high' | 'low';
  /** The bucket walked: the worst one holding a node that is not passed over; null when there is none. */
  bucket: ColorBucket | null;
  node: DivergentNode | null;
  /** Candidates read before the answer. */
  examined: number;
  /** Candidates whose inputs were already in the bucket. */
  inherited: number;
  /** The first nodes passed over for identical statistics (at most 20); `skippedTotal` counts them all. */
  skipped: DivergentSkip[];
  skippedTotal: number;
}
export interface DivergentNode extends FoundNode {
  /** The precision rule that gives the node its value (src/core/compare/precisionDriver.ts DriverRule). */
  rule: string;
  /** The cells that decide the value: item key as in the file and column. */
  cells: Array<{ kind: 'input' | 'output'; key: string; column: string }>;
  /** The inputs' value under the same rule, on the file's scale. */
  inputValue: number;
  /** No node of the bucket has inputs outside it: the difference is already in the graph's inputs; this is the first. */
  inputsDiffer: boolean;
}
export interface DivergentSkip {
  id: string;
  path: string[];
  precisionIndex: number;
  rule: string;
}
