import type {
  MatchFailure,
  OpOutcome,
  OverlayConfigResponse,
  OverlayConfigsResponse,
  OverlayNodesResponse,
  OverlayRequest,
  OverlayResponse,
  OverlaySaveRequest,
  OverlayWriteResponse,
} from '../../core/api/overlay.js';
import type { NodeSummary, Side } from '../../core/api/types.js';
import { BadAnswerError } from './answers.js';
import { ApiRequestError, fileOf, getJson, graphQuery, postJson, type GraphRef } from './client.js';
import { isObj } from './checkValue.js';

/**
 * Issue 15's overlay routes (src/core/api/overlay.ts). `register` is the only one sent without an overlay id; the
 * others get it from client.ts's overlay provider like the graph routes, and are repeated once after a 409
 * `overlayUnknown`. Every answer is checked here before the app sees it.
 */
const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : 0);
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

const FAILURES: readonly MatchFailure[] = ['taskNotSupported', 'notFound', 'typeMismatch', 'alreadyMatched', 'notMatched', 'emptyData', 'outputError', 'notPaired', 'tensorsUnreachable', 'tensorMissing', 'tensorUnreadable'];

function checkOutcome(v: unknown): OpOutcome {
  const o = isObj(v) ? v : {};
  const failed = (Array.isArray(o.failed) ? o.failed : []).filter(isObj).map((f) => ({
    npu: typeof f.npu === 'string' ? f.npu : '',
    bench: typeof f.bench === 'string' ? f.bench : '',
    reason: FAILURES.includes(f.reason as MatchFailure) ? (f.reason as MatchFailure) : 'notFound',
  }));
  return { done: count(o.done), unchanged: count(o.unchanged), failed, failedTotal: Math.max(count(o.failedTotal), failed.length) };
}

export function checkOverlay(body: unknown, file: string, ops: number): OverlayResponse {
  if (!isObj(body) || typeof body.overlay !== 'string' || body.overlay === '') throw new BadAnswerError(file, 'overlay answer has no id');
  const outcomes = (Array.isArray(body.outcomes) ? body.outcomes : []).map(checkOutcome);
  if (outcomes.length !== ops) throw new BadAnswerError(file, `overlay answer has ${outcomes.length} outcomes for ${ops} operations`);
  const c = isObj(body.counts) ? body.counts : {};
  return { overlay: body.overlay, outcomes, counts: { npuUnmatched: count(c.npuUnmatched), benchUnmatched: count(c.benchUnmatched), matched: count(c.matched) } };
}

function checkNodes(body: unknown, file: string): OverlayNodesResponse {
  if (!isObj(body) || !Array.isArray(body.results)) throw new BadAnswerError(file, 'node list answer has no results');
  const results = body.results.filter(isObj).flatMap((r) =>
    typeof r.id === 'string' && r.id !== ''
      ? [{ id: r.id, path: strings(r.path), counterpart: typeof r.counterpart === 'string' && r.counterpart !== '' ? r.counterpart : null }]
      : [],
  );
  return { total: Math.max(count(body.total), results.length), offset: count(body.offset), results };
}

function checkConfigs(body: unknown, file: string): OverlayConfigsResponse {
  if (!isObj(body) || !Array.isArray(body.files)) throw new BadAnswerError(file, 'config list answer has no files');
  return { files: strings(body.files), writable: body.writable === true };
}

function checkConfig(body: unknown, file: string): OverlayConfigResponse {
  if (!isObj(body) || !Array.isArray(body.pairs)) throw new BadAnswerError(file, 'config answer has no pairs');
  const pairs = body.pairs.filter(isObj).flatMap((p) => (typeof p.npu === 'string' && typeof p.bench === 'string' ? [{ npu: p.npu, bench: p.bench }] : []));
  return { file: typeof body.file === 'string' ? body.file : '', pairs };
}

/** The positional answer back as one entry per id held (`fields` says which it carries). */
export type SummaryPatch = Pick<NodeSummary, 'id' | 'precisionIndex'> & Partial<Pick<NodeSummary, 'overflowLevel' | 'matchedNodeLink'>>;

/** The view key a summaries answer gave for the ids last sent, per graph and side (src/core/api/overlay.ts). */
const sentViews = new Map<string, { ids: readonly string[]; view: string }>();
const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The summaries of `ids`: sent once, then named by the key the server gave them while a pane's ids stay the same
 * (a recolour after each overlay change); a server that no longer holds the key (409 `viewUnknown`) gets the ids again.
 */
async function summaries(ref: GraphRef, side: Side, ids: string[], fields: 'all' | 'precision', signal?: AbortSignal): Promise<SummaryPatch[]> {
  const slot = JSON.stringify([graphQuery(ref), side]);
  const query = { ...graphQuery(ref), side };
  const known = sentViews.get(slot);
  const check = (b: unknown) => checkSummaries(b, fileOf(ref), ids, fields);
  if (known && sameIds(known.ids, ids)) {
    try {
      return (await postJson('overlay/summaries', query, { view: known.view, fields }, check, signal)).patches;
    } catch (err) {
      if (!(err instanceof ApiRequestError && err.status === 409 && err.code === 'viewUnknown')) throw err;
    }
  }
  const answer = await postJson('overlay/summaries', query, { ids, fields }, check, signal);
  if (answer.view !== null) sentViews.set(slot, { ids, view: answer.view });
  return answer.patches;
}

function checkSummaries(body: unknown, file: string, ids: readonly string[], fields: 'all' | 'precision'): { view: string | null; patches: SummaryPatch[] } {
  const bad = () => new BadAnswerError(file, 'summaries answer does not fit the ids asked');
  if (!isObj(body) || !Array.isArray(body.precisionIndex) || !Array.isArray(body.missing) || body.precisionIndex.length !== ids.length) throw bad();
  const all = fields === 'all';
  if (all && (!Array.isArray(body.overflowLevel) || !Array.isArray(body.matchedNodeLink) || body.matchedNodeLink.length !== ids.length)) throw bad();
  const missing = new Set(body.missing);
  const out: SummaryPatch[] = [];
  for (let k = 0; k < ids.length; k++) {
    if (missing.has(k)) continue;
    const p = body.precisionIndex[k];
    const patch: SummaryPatch = { id: ids[k], precisionIndex: typeof p === 'number' ? p : null };
    if (all) {
      const o = (body.overflowLevel as unknown[])[k];
      patch.overflowLevel = typeof o === 'string' ? o : null;
      patch.matchedNodeLink = strings((body.matchedNodeLink as unknown[])[k]);
    }
    out.push(patch);
  }
  return { view: typeof body.view === 'string' && body.view !== '' ? body.view : null, patches: out };
}

function checkWrite(body: unknown, file: string): OverlayWriteResponse {
  if (!isObj(body) || typeof body.file !== 'string') throw new BadAnswerError(file, 'write answer names no file');
  return { file: body.file };
}

export type ListState = 'unmatched' | 'matched';

export const overlayApi = {
  register: (ref: GraphRef, request: OverlayRequest, signal?: AbortSignal) =>
    postJson('overlay', graphQuery(ref), request, (b) => checkOverlay(b, fileOf(ref), request.ops.length), signal),
  nodes: (ref: GraphRef, side: Side, state: ListState, offset: number, limit: number, signal?: AbortSignal) =>
    getJson('overlay/nodes', { ...graphQuery(ref), side, state, offset, limit }, (b) => checkNodes(b, fileOf(ref)), signal),
  summaries,
  configs: (ref: GraphRef, signal?: AbortSignal) => getJson('overlay/configs', graphQuery(ref), (b) => checkConfigs(b, fileOf(ref)), signal),
  config: (ref: GraphRef, file: string, signal?: AbortSignal) =>
    getJson('overlay/config', { ...graphQuery(ref), file }, (b) => checkConfig(b, fileOf(ref)), signal),
  exportConfig: (ref: GraphRef) => postJson('overlay/export', graphQuery(ref), {}, (b) => checkWrite(b, fileOf(ref))),
  save: (ref: GraphRef, request: OverlaySaveRequest) => postJson('overlay/save', graphQuery(ref), request, (b) => checkWrite(b, fileOf(ref))),
};

/** Routes answered under the graph's overlay (src/core/api/overlay.ts lists the graph ones). */
export const OVERLAY_ROUTES: ReadonlySet<string> = new Set([
  'graph/meta',
  'graph/children',
  'graph/node',
  'graph/search',
  'graph/filter',
  'graph/worst',
  'graph/divergent',
  'overlay/nodes',
  'overlay/summaries',
  'overlay/export',
  'overlay/save',
]);
