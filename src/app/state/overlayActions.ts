import type { MatchOp, OverlayRequest, OverlayResponse, PrecisionMetric } from '../../core/api/overlay.js';
import type { ColorBucket, Side } from '../../core/api/types.js';
import { validateBuckets, withUnmatchedBucket } from '../../core/colors/buckets.js';
import { ApiRequestError, client, setOverlayProvider, type GraphRef, type Query } from '../api/client.js';
import { OVERLAY_ROUTES, overlayApi } from '../api/overlay.js';
import {
  canRedo,
  canUndo,
  lastStep,
  overlayRequest,
  pushStep,
  redo,
  setColorBuckets,
  setMetrics,
  stepReport,
  undo,
  undoRedoKey,
  type OverlayDoc,
} from '../commands/matchOps.js';
import { loadedIds, patchSummaries } from '../commands/overlayRefresh.js';
import type { MessageKey } from '../i18n/i18n.js';
import { paneFor } from '../pane/paneRegistry.js';
import { currentGraph, describeError, revealNode } from './actions.js';
import { useAppStore } from './appStore.js';
import { decodeOverlay, encodeOverlay } from './overlayLink.js';
import { graphKey, loadDoc, saveDoc, useOverlayStore, type ToastLine } from './overlayStore.js';

/**
 * The overlay's async work (issue 15): registering the open graph's overlay with `POST /api/overlay` before any graph
 * request that needs it (client.ts asks `provider.id`), committing the user's changes, and bringing the view up to
 * date afterwards without a relayout: meta (colours, filter, worst list), the loaded node summaries of both panes,
 * the selection's records. Answers are cached by content, so undo back to an overlay seen before costs no request.
 */
const get = useOverlayStore.getState;
const set = useOverlayStore.setState;

const responses = new Map<string, OverlayResponse>();
const inflight = new Map<string, Promise<OverlayResponse | null>>();
/** Overlays the server refused: not asked again (every graph request would) until the user changes something. */
const refused = new Set<string>();
const RESPONSES_KEPT = 64;
/** A registration stopped by the server's work budget (503) goes on from where it stopped when asked again. */
const BUSY_RETRIES = 6;
const BUSY_RETRY_MS = 300;

const signature = (key: string, request: OverlayRequest) => JSON.stringify([key, request]);

function refOf(query: Query): GraphRef | null {
  if (typeof query.run !== 'string' || typeof query.tag !== 'string') return null;
  const int = (v: unknown) => (typeof v === 'number' ? v : null);
  return { run: query.run, tag: query.tag, format: query.format === 'vis' || query.format === 'db' ? query.format : null, step: int(query.step), rank: int(query.rank) };
}

/** The doc of a graph: the store's for the open one, the stored one for a request about another. */
const docOf = (key: string): OverlayDoc => (get().key === key ? get().doc : loadDoc(key));

async function registerWithRetry(ref: GraphRef, request: OverlayRequest): Promise<OverlayResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await overlayApi.register(ref, request);
    } catch (err) {
      if (!(err instanceof ApiRequestError && err.status === 503) || attempt >= BUSY_RETRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    }
  }
}

/** The server's answer for a graph's doc, registering it once; null when the doc changes nothing or was refused. */
function registered(ref: GraphRef, key: string, doc: OverlayDoc): Promise<OverlayResponse | null> {
  const request = overlayRequest(doc);
  if (request === null) return Promise.resolve(null);
  const sig = signature(key, request);
  const known = responses.get(sig);
  if (known) return Promise.resolve(known);
  if (refused.has(sig)) return Promise.resolve(null);
  let pending = inflight.get(sig);
  if (!pending) {
    pending = registerWithRetry(ref, request).then(
      (response) => {
        responses.set(sig, response);
        if (responses.size > RESPONSES_KEPT) responses.delete(responses.keys().next().value!);
        noteApplied(sig, response);
        return response;
      },
      (err: unknown) => {
        // The file is shown without the overlay, and the banner says why (read-only server, file gone…).
        refused.add(sig);
        useAppStore.getState().setError(describeError(err));
        return null;
      },
    );
    pending.finally(() => inflight.delete(sig));
    inflight.set(sig, pending);
  }
  return pending;
}

function noteApplied(sig: string, response: OverlayResponse): void {
  const { key, doc } = get();
  const request = key === null ? null : overlayRequest(doc);
  if (request !== null && signature(key!, request) === sig && get().applied !== response) set({ applied: response });
}

// ── view ───────────────────────────────────────────────────────────────────────────────────────────────────────

/** Metas this module made (the colour editor's buckets in place of the file's): not taken as the file's colours. */
const ownMetas = new WeakSet<object>();

/** The buckets the graphs are painted with: the editor's, with the file's unmatched grey, or the file's own. */
export function paintedColors(doc: OverlayDoc, fileColors: readonly ColorBucket[]): ColorBucket[] {
  if (doc.colors === null || validateBuckets(doc.colors).length > 0) return [...fileColors];
  return withUnmatchedBucket(doc.colors, fileColors);
}

const sameColors = (a: readonly ColorBucket[], b: readonly ColorBucket[]) => JSON.stringify(a) === JSON.stringify(b);

/** Puts the painted buckets into meta: every pane, the legend, the filter and the lists read them from there. */
function repaint(): void {
  const meta = useAppStore.getState().meta;
  if (!meta || meta.graphType !== 'compare') return;
  const colors = paintedColors(get().doc, get().fileColors);
  if (sameColors(meta.colors, colors)) return;
  const next = { ...meta, colors };
  ownMetas.add(next);
  useAppStore.setState({ meta: next });
}

async function refreshPane(side: Side, ref: GraphRef, fileVersion: number, fields: 'all' | 'precision'): Promise<void> {
  const pane = paneFor(side);
  if (!pane) return;
  const tree = pane.store.getState().tree;
  const ids = loadedIds(tree);
  if (ids.length === 0) return;
  const results = await overlayApi.summaries(ref, side, ids, fields);
  if (useAppStore.getState().fileVersion !== fileVersion) return;
  pane.updateTree((t) => (t.rootId === tree.rootId ? patchSummaries(t, results) : t));
}

/**
 * Meta, the panes' loaded nodes and the selection's records, under the overlay now registered. `metricsOnly`: the
 * operations are those of the overlay shown, so only NPU indexes can move (overlay.ts, metric choice).
 */
async function refreshView(ref: GraphRef, metricsOnly: boolean): Promise<void> {
  const version = useAppStore.getState().fileVersion;
  try {
    const meta = await client.meta(ref);
    if (useAppStore.getState().fileVersion !== version) return;
    useAppStore.setState({ meta });
    const selection = useAppStore.getState().selection;
    await Promise.all([
      refreshPane('npu', ref, version, metricsOnly ? 'precision' : 'all'),
      metricsOnly ? null : refreshPane('bench', ref, version, 'all'),
      selection ? revealNode(selection.side, selection.id, selection.positions, { quiet: true }) : null,
    ]);
  } catch (err) {
    if (useAppStore.getState().fileVersion === version) useAppStore.getState().setError(describeError(err));
  }
}

// ── commands ───────────────────────────────────────────────────────────────────────────────────────────────────

type Report = (response: OverlayResponse | null, doc: OverlayDoc) => void;

/**
 * Makes `next` the open graph's overlay: stored, registered, and the view refreshed when what the server computes
 * changed (colours alone only repaint). `report` then says what happened. A newer commit supersedes an older one.
 */
export async function commit(next: OverlayDoc, report?: Report): Promise<void> {
  const { key, doc: before } = get();
  const ref = currentGraph();
  if (key === null || !ref || graphKey(ref) !== key) return;
  const request = overlayRequest(next);
  const sameRequest = JSON.stringify(overlayRequest(before)) === JSON.stringify(request);
  set({ doc: next });
  saveDoc(key, next);
  if (before.colors !== next.colors) repaint();
  if (sameRequest) {
    report?.(get().applied, next);
    return;
  }
  if (request !== null) refused.delete(signature(key, request));
  set({ busy: true, applied: null });
  const response = await registered(ref, key, next);
  if (get().doc !== next) return;
  set({ applied: response });
  await refreshView(ref, JSON.stringify(overlayRequest(before)?.ops ?? []) === JSON.stringify(request?.ops ?? []));
  if (get().doc !== next) return;
  set((s) => ({ busy: false, version: s.version + 1 }));
  report?.(response, next);
}

const MAX_FAILURE_LINES = 5;

function stepToast(kind: 'match' | 'unmatch' | 'config', file = ''): Report {
  return (response, doc) => {
    if (!response) {
      get().showToast('error', [{ key: 'match.toast.notApplied' }]);
      return;
    }
    const report = stepReport(lastStep(doc, response.outcomes));
    const lines: ToastLine[] = [];
    if (kind === 'config') lines.push({ key: 'match.toast.config', vars: { file, total: report.total, succeeded: report.succeeded, failed: report.failed } });
    else lines.push({ key: kind === 'match' ? 'match.toast.matched' : 'match.toast.unmatched', vars: { count: report.pairs } });
    if (report.failures.length > 0) {
      lines.push({ key: 'match.toast.failed', vars: { count: report.failedPairs } });
      for (const f of report.failures.slice(0, MAX_FAILURE_LINES)) {
        // Most pairs share one name on both sides: it is said once.
        const pair = f.npu === f.bench ? f.npu : `${f.npu} ↔ ${f.bench}`;
        lines.push({ key: `match.reason.${f.reason}` as MessageKey, vars: { pair } });
      }
      if (report.failedPairs > MAX_FAILURE_LINES) lines.push({ key: 'match.toast.more', vars: { count: report.failedPairs - MAX_FAILURE_LINES } });
    }
    get().showToast(report.failures.length === 0 ? 'ok' : report.pairs > 0 ? 'warn' : 'error', lines);
  };
}

/** Match or unmatch one pair (with its children when asked); a toast says how many pairs and why any failed. */
export function matchPair(op: 'match' | 'unmatch', npu: string, bench: string, children: boolean): Promise<void> {
  return commit(pushStep(get().doc, [{ op, npu, bench, children }]), stepToast(op));
}

export function undoOverlay(): Promise<void> {
  const doc = get().doc;
  if (!canUndo(doc)) return Promise.resolve();
  return commit(undo(doc), () => get().showToast('ok', [{ key: 'match.toast.undone' }]));
}

export function redoOverlay(): Promise<void> {
  const doc = get().doc;
  if (!canRedo(doc)) return Promise.resolve();
  return commit(redo(doc), () => get().showToast('ok', [{ key: 'match.toast.redone' }]));
}

export function chooseMetrics(metrics: readonly PrecisionMetric[]): Promise<void> {
  return commit(setMetrics(get().doc, metrics));
}

/** The editor's buckets (validated there with the core's rules), or null for the file's own. */
export function chooseColors(colors: readonly ColorBucket[] | null): Promise<void> {
  return commit(setColorBuckets(get().doc, colors));
}

function errorLines(err: unknown): ToastLine[] {
  if (err instanceof ApiRequestError && err.status === 403) return [{ key: 'match.toast.readOnly' }, { key: 'match.toast.error', vars: { message: err.message } }];
  if (err instanceof ApiRequestError && err.status === 409) return [{ key: 'match.toast.fileChanged' }, { key: 'match.toast.error', vars: { message: err.message } }];
  return [{ key: 'match.toast.error', vars: { message: describeError(err) } }];
}

/** A `.vis.config` of the run directory: every pair is applied as the original does (alone), as one undo step. */
export async function applyConfig(file: string): Promise<void> {
  const ref = currentGraph();
  if (!ref) return;
  try {
    const config = await overlayApi.config(ref, file);
    if (config.pairs.length === 0) {
      get().showToast('warn', [{ key: 'match.toast.configEmpty', vars: { file } }]);
      return;
    }
    const ops = config.pairs.map((p): MatchOp => ({ op: 'config', npu: p.npu, bench: p.bench, children: false }));
    await commit(pushStep(get().doc, ops), stepToast('config', file));
  } catch (err) {
    get().showToast('error', errorLines(err));
  }
}

export async function exportConfig(): Promise<void> {
  const ref = currentGraph();
  if (!ref) return;
  try {
    const { file } = await overlayApi.exportConfig(ref);
    get().showToast('ok', [{ key: 'match.toast.exported', vars: { file } }]);
  } catch (err) {
    get().showToast('error', errorLines(err));
  }
}

/**
 * "Save as…" (a new `{tag}.matched.*` file) or "Overwrite" (after a `.bak`), against the file version shown. Resolves
 * 'exists' when a copy is already there and `replace` was not given (the panel asks first). After an overwrite the
 * matches are in the file itself: the browser's steps are dropped (replayed they would all fail as already matched).
 */
export async function saveMatched(mode: 'copy' | 'overwrite', replace = false): Promise<'exists' | void> {
  const ref = currentGraph();
  const stamp = useAppStore.getState().meta?.stamp;
  if (!ref) return;
  try {
    const { file } = await overlayApi.save(ref, { mode, stamp: stamp ?? '', ...(replace ? { replace } : {}) });
    if (mode === 'overwrite') await commit({ ...get().doc, steps: [], cursor: 0 });
    get().showToast('ok', [{ key: mode === 'copy' ? 'match.toast.savedCopy' : 'match.toast.overwritten', vars: { file } }]);
  } catch (err) {
    if (err instanceof ApiRequestError && err.code === 'targetExists' && !replace) return 'exists';
    get().showToast('error', errorLines(err));
  }
}

// ── link ───────────────────────────────────────────────────────────────────────────────────────────────────────

/** The `ov=` text of the open graph's overlay; null when it carries nothing or is too long for a link. */
export function overlayLinkText(): string | null {
  return get().key === null ? null : encodeOverlay(get().doc) || null;
}

/**
 * A link's `ov=` for the graph it opens: it wins over what this browser holds (an equal overlay keeps the local undo
 * history). Called before the graph is opened (stored for it) and for the open graph (committed).
 */
export async function adoptLinkOverlay(ref: GraphRef, text: string | null | undefined): Promise<void> {
  const doc = decodeOverlay(text ?? null);
  if (!doc) return;
  const key = graphKey(ref);
  const current = docOf(key);
  if (encodeOverlay(current) === encodeOverlay(doc)) return;
  if (get().key === key) await commit(doc);
  else saveDoc(key, doc);
}

// ── wiring ─────────────────────────────────────────────────────────────────────────────────────────────────────

function openGraphChanged(): void {
  const ref = currentGraph();
  const key = ref ? graphKey(ref) : null;
  if (key === get().key) return;
  const doc = key === null ? get().doc : loadDoc(key);
  const request = key === null ? null : overlayRequest(doc);
  set({ key, doc, applied: request ? (responses.get(signature(key!, request)) ?? null) : null, busy: false, fileColors: [], toast: null });
}

let started = false;

/** Installs the overlay into client.ts's requests and follows the open graph; once, before the first request. */
export function startOverlay(): void {
  if (started) return;
  started = true;
  setOverlayProvider({
    routes: OVERLAY_ROUTES,
    async id(query) {
      const ref = refOf(query);
      if (!ref) return null;
      const key = graphKey(ref);
      return (await registered(ref, key, docOf(key)))?.overlay ?? null;
    },
    forget(id) {
      for (const [sig, response] of responses) if (response.overlay === id) responses.delete(sig);
    },
  });
  openGraphChanged();
  useAppStore.subscribe((s, prev) => {
    if (s.run !== prev.run || s.tag !== prev.tag || s.format !== prev.format || s.step !== prev.step || s.rank !== prev.rank) openGraphChanged();
    if (s.meta !== prev.meta && s.meta && !ownMetas.has(s.meta)) {
      set({ fileColors: s.meta.colors });
      repaint();
    }
  });
  window.addEventListener('keydown', (e) => {
    const target = e.target instanceof HTMLElement ? e.target : null;
    const action = undoRedoKey({
      key: e.key,
      shiftKey: e.shiftKey,
      ctrlKey: e.ctrlKey,
      metaKey: e.metaKey,
      altKey: e.altKey,
      targetTag: target?.tagName ?? '',
      targetEditable: target?.isContentEditable ?? false,
    });
    if (!action || useAppStore.getState().meta?.graphType !== 'compare') return;
    e.preventDefault();
    void (action === 'undo' ? undoOverlay() : redoOverlay());
  });
}
