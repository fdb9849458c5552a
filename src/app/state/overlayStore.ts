import { create } from 'zustand';
import type { MatchOp, OverlayResponse, PrecisionMetric } from '../../core/api/overlay.js';
import { PRECISION_METRICS } from '../../core/api/overlay.js';
import type { ColorBucket } from '../../core/api/types.js';
import { EMPTY_DOC, type OverlayDoc } from '../commands/matchOps.js';
import type { MessageKey } from '../i18n/i18n.js';
import type { GraphRef } from '../api/client.js';

/**
 * The comparison overlay of the open graph (issue 15): one store for the page, plain state and setters; the async
 * work (registering with the server, refreshing the view) lives in overlayActions.ts. The doc is kept per browser
 * and per graph in localStorage, so a reload or a later visit finds it again; the link carries it too (overlayLink.ts).
 */
export interface ToastLine {
  key: MessageKey;
  vars?: Record<string, string | number>;
}

export interface Toast {
  /** Bumped per toast, so the same words twice still show (and restart the timer). */
  seq: number;
  tone: 'ok' | 'warn' | 'error';
  lines: ToastLine[];
}

export interface OverlayState {
  /** graphKey() of the graph `doc` belongs to; null while no file is open. */
  key: string | null;
  doc: OverlayDoc;
  /** The server's answer for the doc as it is now (null: nothing to register, or not registered yet). */
  applied: OverlayResponse | null;
  /** A change is being registered and the view refreshed. */
  busy: boolean;
  /** Bumped once the view shows a new overlay: the Match lists read again. */
  version: number;
  /** The file's own buckets (meta as the server sent it), for the editor's reset and the unmatched grey. */
  fileColors: ColorBucket[];
  toast: Toast | null;
  showToast: (tone: Toast['tone'], lines: ToastLine[]) => void;
  hideToast: () => void;
}

export const useOverlayStore = create<OverlayState>()((set) => ({
  key: null,
  doc: EMPTY_DOC,
  applied: null,
  busy: false,
  version: 0,
  fileColors: [],
  toast: null,
  showToast: (tone, lines) => set((s) => ({ toast: { seq: (s.toast?.seq ?? 0) + 1, tone, lines } })),
  hideToast: () => set({ toast: null }),
}));

/** One graph of one file: run, tag, format, and a `.vis.db`'s step and rank, as the requests name them. */
export function graphKey(ref: GraphRef): string {
  return JSON.stringify([ref.run, ref.tag, ref.format ?? null, ref.step ?? null, ref.rank ?? null]);
}

const STORAGE_PREFIX = 'probeboard.overlay:';
/** A doc whose JSON is longer than this is not stored (localStorage holds a few MB per origin). */
const STORAGE_MAX_CHARS = 1_000_000;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readOp(v: unknown): MatchOp | null {
  if (!isObj(v) || (v.op !== 'match' && v.op !== 'unmatch' && v.op !== 'config') || typeof v.npu !== 'string' || typeof v.bench !== 'string') return null;
  if (v.npu === '' || v.bench === '') return null;
  return { op: v.op, npu: v.npu, bench: v.bench, children: v.children === true };
}

function readBucket(v: unknown): ColorBucket | null {
  if (!isObj(v) || typeof v.color !== 'string' || !Array.isArray(v.value) || !v.value.every((x) => typeof x === 'number')) return null;
  return { color: v.color, value: v.value as number[], description: typeof v.description === 'string' ? v.description : '' };
}

/** A stored doc, checked: storage is the user's and may hold anything (an older version, a hand edit). */
export function parseStoredDoc(text: string | null): OverlayDoc {
  if (text === null) return EMPTY_DOC;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return EMPTY_DOC;
  }
  if (!isObj(raw) || !Array.isArray(raw.steps)) return EMPTY_DOC;
  const steps = raw.steps.map((step) => (Array.isArray(step) ? step.map(readOp) : [])).filter((step): step is MatchOp[] => step.length > 0 && step.every((op) => op !== null));
  const cursor = Number.isSafeInteger(raw.cursor) ? Math.max(0, Math.min(steps.length, raw.cursor as number)) : steps.length;
  const metrics = Array.isArray(raw.metrics) ? PRECISION_METRICS.filter((m) => (raw.metrics as unknown[]).includes(m)) : [];
  const colors = Array.isArray(raw.colors) ? raw.colors.map(readBucket) : null;
  return {
    steps,
    cursor,
    metrics: metrics.length > 0 && metrics.length < PRECISION_METRICS.length ? (metrics as PrecisionMetric[]) : null,
    colors: colors && colors.every((b) => b !== null) ? (colors as ColorBucket[]) : null,
  };
}

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage disabled (privacy mode): the overlay lives for the page only
  }
}

export function loadDoc(key: string): OverlayDoc {
  return parseStoredDoc(storage()?.getItem(STORAGE_PREFIX + key) ?? null);
}

export function saveDoc(key: string, doc: OverlayDoc): void {
  const store = storage();
  if (!store) return;
  try {
    if (doc.steps.length === 0 && doc.metrics === null && doc.colors === null) store.removeItem(STORAGE_PREFIX + key);
    else {
      const text = JSON.stringify(doc);
      if (text.length <= STORAGE_MAX_CHARS) store.setItem(STORAGE_PREFIX + key, text);
    }
  } catch {
    // Quota exceeded: the overlay stays in the page and the link; nothing else to do.
  }
}
