/**
 * HTTP contract of issue 15's comparison overlay: manual matches and the precision metric choice, applied on top of
 * a served file without touching it (reference-viewer.md §3.4, §3.5, §4.4 give the semantics).
 *
 * An overlay is the ordered list of a client's operations plus its metric choice. The client keeps it (browser
 * storage, share link) and registers it with `POST /api/overlay`; the server replays it with src/core/match and answers
 * an id derived from the file, the graph and the content, so two clients with different overlays never see each
 * other's, and identical ones share the work. Graph routes (`meta`, `children`, `node`, `search`, `filter`, `worst`,
 * `divergent`) take `overlay=<id>`; an id the server does not hold (it restarted, or dropped it) is answered 409 with
 * `code: 'overlayUnknown'`, and the client registers the overlay again and repeats the request. An id belongs to one
 * file version and one graph (step, rank): after the file changes, or for another step/rank, it is unknown too.
 * (`heatmap` ignores `overlay`: it shows every rank, an overlay belongs to one.)
 *
 * Errors are `{error, code?}`; codes a client acts on: `overlayUnknown` (409), `fileChanged` (409: the file's stamp is
 * not the request's), `targetExists` (409), `readOnly` (403: `serve --read_only`, or bound to other machines without
 * `--writable`), `notSameOrigin` (403). Write routes (`POST`) must send `Content-Type: application/json` and come
 * from the page's own origin (server/overlay/writeGuard.ts; fetch's default `same-origin` credentials are enough).
 * A large file may answer any of these routes 202 (IndexingResponse) while it is indexed or, with a metric choice,
 * while the recomputed values are read: the client asks again, as for graph routes.
 */

import type { NodeSummary } from './types.js';

/**
 * `match` / `unmatch`: the pair with its forward↔backward partner, and its children when `children` (§4.4).
 * `config`: one `.vis.config` entry as the original applies it — the pair alone (no partner, no children; `children`
 * is ignored), a pair already matched to each other counting as unchanged.
 */
export type MatchOpKind = 'match' | 'unmatch' | 'config';

/** One user action: pair (or unpair) an NPU node and a Bench node, with their children when `children`. */
export interface MatchOp {
  op: MatchOpKind;
  npu: string;
  bench: string;
  children: boolean;
}

/** The precision metrics of statistics mode (§3.4 metric dialog); all four = the file's own precision_index. */
export type PrecisionMetric = 'MaxRelativeErr' | 'MinRelativeErr' | 'MeanRelativeErr' | 'NormRelativeErr';
export const PRECISION_METRICS: readonly PrecisionMetric[] = ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr'];

/** `POST /api/overlay?run&tag&format&step&rank` body. */
export interface OverlayRequest {
  ops: MatchOp[];
  /** Absent = all four. */
  metrics?: PrecisionMetric[];
}

/** Why one pair was not (un)matched: codes with en/zh messages in the UI. */
export type MatchFailure =
  | 'taskNotSupported'
  | 'notFound'
  | 'typeMismatch'
  | 'alreadyMatched'
  | 'notMatched'
  | 'emptyData'
  | 'outputError'
  | 'notPaired'
  // Real-tensor files: no compare.json in the run directory leads to the dumps (inside the log dir); a tensor file
  // of the pair is not there; one cannot be read.
  | 'tensorsUnreachable'
  | 'tensorMissing'
  | 'tensorUnreadable';

export interface OpOutcome {
  /** Pairs (un)matched by this op: the pair itself, its forward/backward partner and children. */
  done: number;
  /** Pairs already in the asked-for state (a partner already matched, a config entry applied twice): no failure. */
  unchanged?: number;
  /** At most 100 failures; `failedTotal` counts them all. */
  failed: Array<{ npu: string; bench: string; reason: MatchFailure }>;
  failedTotal?: number;
}

export interface OverlayResponse {
  overlay: string;
  /** One per op, in order. */
  outcomes: OpOutcome[];
  counts: { npuUnmatched: number; benchUnmatched: number; matched: number };
}

/**
 * `GET /api/overlay/nodes?run&tag&…&overlay&side&state=unmatched|matched&offset&limit`: the Function tab's lists, in
 * pre-order (the file's node order), `overlay` optional (absent = the file as it is). `limit` ≤ 1000 (default 100);
 * unmatched lists page up to `offset + limit` ≤ 10,000. `path` = ancestors root first; `counterpart` = the last element
 * of the node's matched_node_link (null when unmatched). Matched lists walk the side's tree under the request's budget.
 */
export interface OverlayNodesResponse {
  total: number;
  offset: number;
  results: Array<{ id: string; path: string[]; counterpart: string | null }>;
}

/**
 * `POST /api/overlay/summaries?run&tag&…&overlay&side` body `{ ids, fields? }` (at most 200,000 ids, 32 MiB): the
 * fields an overlay can change of many loaded nodes at once, as `/api/graph/children` under the same overlay answers
 * them (`overlay` absent = the file as it is). A recolour after a match or a metric choice asks this once per side
 * instead of every loaded children page again. `fields: "precision"` (a metric choice changes nothing else) answers
 * the index alone. The answer is positional — entry k is ids[k] — so it does not repeat the ids: `missing` lists the
 * positions the side does not hold (their entries are null / absent). The answer's `view` names the ids: a later request
 * may send `{ view }` in place of `ids` (the pane's recolour after the next overlay change); the server keeps 64 views
 * or 2,000,000 ids, least recently used dropped first, and answers an unknown one — or one of another side, graph or
 * file version — 409 `viewUnknown`: send the ids again.
 */
export type OverlaySummariesRequest = { fields?: 'all' | 'precision' } & ({ ids: string[]; view?: never } | { view: string; ids?: never });

export interface OverlaySummariesResponse {
  /** Names these ids on the same side of the same file version and graph: send `{ view }` instead of them next time. */
  view: string;
  missing: number[];
  precisionIndex: Array<NodeSummary['precisionIndex']>;
  /** With `fields: "all"` (the default). */
  overflowLevel?: Array<NodeSummary['overflowLevel']>;
  matchedNodeLink?: Array<NodeSummary['matchedNodeLink']>;
}

/** `GET /api/overlay/configs?run&tag&…`: the `*.vis.config` files in the run directory. */
export interface OverlayConfigsResponse {
  files: string[];
  /** False when the server runs read-only: share/save buttons are disabled with the reason. */
  writable: boolean;
}

/**
 * `GET /api/overlay/config?run&tag&…&file=`: a config's pairs, in file order, which the client applies as `config` ops
 * (as the original: each pair alone). `file` is a plain name in the run directory ending `.vis.config`; 4xx names it.
 */
export interface OverlayConfigResponse {
  file: string;
  pairs: Array<{ npu: string; bench: string }>;
}

/**
 * `POST /api/overlay/export?run&tag&…&overlay` body `{}` writes `{tag}.vis.config` (`.vis.db`:
 * `{tag}_{step}_{rank}.vis.config`) into the run directory, as the original's "generate match config": `.vis` — the
 * overlay's manual matches (matched and not unmatched since); `.vis.db` — every pair of rows with `modified = 1` in the
 * file and the overlay's manual matches. `POST /api/overlay/save?…&overlay` body OverlaySaveRequest writes
 * `{tag}.matched.vis` / `{tag}.matched.vis.db` beside the file (overwrite: the file itself, after `{file}.bak`), the
 * file plus exactly the overlay's changes (matched_node_link, items, precision_index; `.vis.db` rows `modified = 1`).
 * Both answer 403 when the server is read-only and 409 when the file changed since `stamp` (meta's `stamp`).
 */
export interface OverlayWriteResponse {
  file: string;
}

export interface OverlaySaveRequest {
  mode: 'copy' | 'overwrite';
  stamp: string;
  /** `copy` onto an existing `{tag}.matched.*` is 409 `targetExists` unless true (two users never clobber each other). */
  replace?: boolean;
}
