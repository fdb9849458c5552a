import type { MatchFailure, MatchOp, OpOutcome, OverlayRequest, PrecisionMetric } from '../../core/api/overlay.js';
import { PRECISION_METRICS } from '../../core/api/overlay.js';
import type { ColorBucket } from '../../core/api/types.js';
import type { KeyPress } from './shortcuts.js';

/**
 * The comparison overlay of one graph as the browser keeps it (issue 15): the user's match / unmatch steps with an
 * undo cursor, the precision metrics and the colour buckets. Pure `(doc, args) → doc` commands, bound to the Match
 * panel's buttons, the undo/redo keys and the link restore; the server only ever sees `overlayRequest(doc)`.
 */
export interface OverlayDoc {
  /** Undo steps, oldest first: one match or unmatch, or every pair of an applied `.vis.config`. */
  steps: MatchOp[][];
  /** steps[0..cursor) are applied; the rest are what Redo re-applies. */
  cursor: number;
  /** null = all four relative errors, i.e. the file's own precision_index. */
  metrics: PrecisionMetric[] | null;
  /** The colour editor's buckets (core/colors/buckets.ts adds the unmatched grey when painting); null = the file's own. */
  colors: ColorBucket[] | null;
}

export const EMPTY_DOC: OverlayDoc = { steps: [], cursor: 0, metrics: null, colors: null };

/** A new step drops whatever could have been redone, as every undo stack does. */
export function pushStep(doc: OverlayDoc, ops: MatchOp[]): OverlayDoc {
  if (ops.length === 0) return doc;
  return { ...doc, steps: [...doc.steps.slice(0, doc.cursor), ops], cursor: doc.cursor + 1 };
}

export const canUndo = (doc: OverlayDoc): boolean => doc.cursor > 0;
export const canRedo = (doc: OverlayDoc): boolean => doc.cursor < doc.steps.length;

export function undo(doc: OverlayDoc): OverlayDoc {
  return canUndo(doc) ? { ...doc, cursor: doc.cursor - 1 } : doc;
}

export function redo(doc: OverlayDoc): OverlayDoc {
  return canRedo(doc) ? { ...doc, cursor: doc.cursor + 1 } : doc;
}

/** Any non-empty subset, kept in the dialog's order; all four is the file's own index (stored as null). */
export function setMetrics(doc: OverlayDoc, metrics: readonly PrecisionMetric[]): OverlayDoc {
  const chosen = PRECISION_METRICS.filter((m) => metrics.includes(m));
  if (chosen.length === 0) return doc;
  return { ...doc, metrics: chosen.length === PRECISION_METRICS.length ? null : chosen };
}

/** Validated by the caller with core/colors/buckets.ts validateBuckets; null = back to the file's own buckets. */
export function setColorBuckets(doc: OverlayDoc, colors: readonly ColorBucket[] | null): OverlayDoc {
  return { ...doc, colors: colors === null ? null : colors.map((b) => ({ ...b, value: Array.isArray(b.value) ? [...b.value] : b.value })) };
}

export const activeOps = (doc: OverlayDoc): MatchOp[] => doc.steps.slice(0, doc.cursor).flat();

/** What `POST /api/overlay` is sent, or null when the overlay changes nothing the server computes. */
export function overlayRequest(doc: OverlayDoc): OverlayRequest | null {
  const ops = activeOps(doc);
  if (ops.length === 0 && doc.metrics === null) return null;
  return doc.metrics === null ? { ops } : { ops, metrics: doc.metrics };
}

/** The last step's ops with their outcomes (the server answers one outcome per op, in order). */
export function lastStep(doc: OverlayDoc, outcomes: readonly OpOutcome[]): Array<{ op: MatchOp; outcome: OpOutcome }> {
  if (doc.cursor === 0) return [];
  const before = doc.steps.slice(0, doc.cursor - 1).reduce((n, step) => n + step.length, 0);
  return doc.steps[doc.cursor - 1].flatMap((op, i) => (outcomes[before + i] ? [{ op, outcome: outcomes[before + i] }] : []));
}

export interface StepReport {
  /** Ops of the step: pairs named by the user or by a config. */
  total: number;
  /** Ops whose own pair was (un)matched, or already was: a config entry another entry's partner paired is no failure. */
  succeeded: number;
  /** Ops whose own pair failed. */
  failed: number;
  /** Pairs (un)matched, children and forward/backward partners included. */
  pairs: number;
  /** Failed pairs with their reasons, partners and children included (the server lists up to 100 per op). */
  failures: Array<{ npu: string; bench: string; reason: MatchFailure }>;
  /** Every failed pair, listed or not. */
  failedPairs: number;
}

export function stepReport(step: ReadonlyArray<{ op: MatchOp; outcome: OpOutcome }>): StepReport {
  const failed = step.filter(({ op, outcome }) => outcome.failed.some((f) => f.npu === op.npu && f.bench === op.bench)).length;
  return {
    total: step.length,
    succeeded: step.length - failed,
    failed,
    pairs: step.reduce((n, s) => n + s.outcome.done, 0),
    failures: step.flatMap((s) => s.outcome.failed),
    failedPairs: step.reduce((n, s) => n + Math.max(s.outcome.failedTotal ?? 0, s.outcome.failed.length), 0),
  };
}

/** Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo (⌘ on macOS), except while typing, where they edit the text. */
export function undoRedoKey(press: KeyPress & { shiftKey: boolean }): 'undo' | 'redo' | null {
  if (!(press.ctrlKey || press.metaKey) || press.altKey) return null;
  if (press.targetEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(press.targetTag.toUpperCase())) return null;
  const key = press.key.toLowerCase();
  if (key === 'z') return press.shiftKey ? 'redo' : 'undo';
  if (key === 'y' && !press.shiftKey) return 'redo';
  return null;
}
