/**
 * Manual matching, the original viewer's "Function" tab engine (reference-viewer.md §3.4, §3.5, §4.4), framework-free:
 * it runs in Node, a Web Worker and tests, and changes nothing it is given.
 *
 * Reading a file: implement `MatchGraph.node(side, id)` over the store (sides 'npu' / 'bench'; roots are whatever the
 * file names; `upnode` null for a root). Fields may be lazy: items are read only for pairs being compared.
 *
 * Operations — each returns a `MatchPlan`: the ordered `ops` (pair, its forward↔backward partner, then children
 * depth-first), each either `ok` with the new state of both nodes (`npuChange`, `benchChange`: matched_node_link,
 * precision_index, items) or failed with a `MatchFailure` code (api/overlay.ts; the UI words it in en/zh):
 * - `planMatch(graph, task, npu, bench, { withChildren })` — both unmatched and of one node_type; summary recomputes
 *   the NPU items' `*AbsErr` / `*RelativeErr` and `precision_index`, md5 the 0/1 index; `all` recomputes the six
 *   real-tensor columns and its index with the `graph` command's code from tensors the caller reads
 *   (`options.tensors`, realCompare.ts: a plan with `pending` tensors is a draft to plan again), else is refused.
 * - `planUnmatch(graph, task, npu, bench, { withChildren })` — the pair must be matched to each other; summary strips
 *   the eight keys again, so unmatching a match of ours restores the items exactly.
 * - `planConfig(graph, task, pairs)` — a `.vis.config`'s entries, each alone.
 * Plans see their own earlier steps. `OverlayGraph` lays plans over a graph without touching it (`apply`, `node`,
 * `changes` for writers), so an overlay is "base graph + the plans of the user's ops, in order".
 *
 * Also: `compareMatched` / `unmatchedData` (one pair's numbers), `precisionFromMetrics` (the metric dialog),
 * `partnerName` / `childGroupKey` (the name rules), `.vis.config` `parseVisConfig` / `serializeVisConfig` /
 * `visConfigName`. Colour buckets (editor palette, validation, presets) live in colors/buckets.ts.
 *
 * Where this departs from the original, on purpose (each explained where it is done): the partner swaps only the
 * direction segment of an id; a node already matched is not silently re-matched; matched_node_link is the counterpart's
 * full root-first path on both file formats; null / non-numeric statistics count as NaN instead of failing the request;
 * real-tensor files are matched (the original refuses them) when the caller can read their tensors.
 */
export {
  ADD_MATCH_KEYS,
  absErrValue,
  compareMatched,
  formatRelativeErr,
  isMatchTask,
  statFloat,
  unmatchedData,
  type CompareResult,
  type CompareSide,
  type Items,
  type MatchTask,
} from './compare.js';
export { childGroupKey, partnerName } from './names.js';
export {
  OverlayGraph,
  planConfig,
  planMatch,
  planUnmatch,
  type MatchGraph,
  type MatchNode,
  type MatchPlan,
  type NodeChange,
  type PairDone,
  type PairFailed,
  type PairKind,
  type PairOp,
  type PairRole,
  type PlanOptions,
} from './plan.js';
export { metricCells, metricMask, precisionFromCells, precisionFromMetrics, type MetricCells } from './precision.js';
export {
  compareReal,
  REAL_MATCH_KEYS,
  unmatchedRealData,
  type PendingTensors,
  type TensorLookup,
  type TensorRequest,
} from './realCompare.js';
export {
  MAX_VIS_CONFIG_CHARS,
  parseVisConfig,
  serializeVisConfig,
  visConfigName,
  VisConfigError,
  type VisConfigProblem,
} from './visConfig.js';
