import { createHash } from 'node:crypto';
import type { MatchOp, OpOutcome, PrecisionMetric } from '../../src/core/api/overlay.js';
import { OverlayGraph, planConfig, planMatch, planUnmatch, type MatchPlan, type TensorRequest } from '../../src/core/match/index.js';
import type { DerivedCacheOptions } from '../store/derivedCache.js';
import type { GraphStore } from '../store/graphStore.js';
import { budgetLeftMs, WorkBudgetExceeded, WorkInProgress } from '../store/workBudget.js';
import { CellTables } from './metricCells.js';
import { OverlayEntry, type OverlayTarget } from './overlayEntry.js';
import { OverlayStore } from './overlayStore.js';
import { StoreMatchGraph } from './storeMatchGraph.js';
import { compareJsonStamp, TensorSource } from './tensorSource.js';

/** A registration replays ops for at most this long (or half its budget), then answers 202 and goes on when asked again. */
const REPLAY_SLICE_MS = 1000;
/** Failures listed per op in the answer; `failedTotal` counts them all. */
const MAX_FAILURES_LISTED = 100;
/** Real-tensor files whose dumps' metrics are kept (one per file version and graph). */
const MAX_TENSOR_SOURCES = 16;
/** Tensor pairs gathered from the ops ahead of a draft, for one background read. */
const MAX_DRAFT_NEEDS = 20_000;

export interface OverlayRegistryOptions {
  maxCount?: number;
  maxBytes?: number;
  /**
   * realpath of the log dir root holding the target's file: real-tensor matches read dumps only inside it
   * (tensorSource.ts); none without it.
   */
  rootOf?: (target: OverlayTarget) => string | null;
  /** Where the metric cells of a file version are kept for the next server process (metricCells.ts); none without. */
  derived?: DerivedCacheOptions | null;
}

/**
 * The overlays this server holds (src/core/api/overlay.ts), least recently used dropped first past `maxCount` entries
 * or `maxBytes` of changes and derived lists. An id is a digest of the file version, the graph and the canonical
 * request: two clients with the same overlay share one entry, and an overlay never outlives its file version (a
 * changed file gives new ids; its old entries age out). A new overlay replays from the longest registered prefix of
 * its ops — each match or undo/redo step of a client extends or shortens the last one — and a replay stopped by the
 * request's work budget keeps what it did and answers 202, so the client's repeat goes on from there.
 *
 * Real-tensor (`all`) files: a match reads the pair's tensors first (tensorSource.ts, off the event loop), answering
 * 202 until they are read; the version of the run directory's compare.json is part of the id, so putting it in place
 * (or fixing it) replays ops that failed for want of it.
 */
export class OverlayRegistry {
  private readonly entries = new Map<string, OverlayEntry>();
  private readonly wrappers = new WeakMap<OverlayEntry, OverlayStore>();
  /** The compare.json version each real-tensor entry was replayed with. */
  private readonly tensorStamps = new WeakMap<OverlayEntry, string>();
  private readonly tensorSources = new Map<string, TensorSource>();
  private readonly maxCount: number;
  private readonly maxBytes: number;
  private readonly rootOf: (target: OverlayTarget) => string | null;
  private readonly cellTables: CellTables;

  constructor(options: OverlayRegistryOptions = {}) {
    this.maxCount = options.maxCount ?? 128;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.rootOf = options.rootOf ?? (() => null);
    this.cellTables = new CellTables(options.derived ?? null);
  }

  register(target: OverlayTarget, store: GraphStore, task: string, ops: readonly MatchOp[], metrics: readonly PrecisionMetric[] | null): OverlayEntry {
    const opKeys = ops.map(opKey);
    const root = task === 'all' ? this.rootOf(target) : null;
    const tensors = root !== null ? this.tensorSource(target, root) : undefined;
    const stamp = tensors ? compareJsonStamp(target) : '';
    tensors?.prepare(stamp);
    const id = overlayId(target, opKeys, metrics, stamp);
    const hit = this.get(id, target, store);
    if (hit) return hit;
    let start: OverlayEntry | null = null;
    for (const e of this.entries.values()) {
      if (!sameTarget(e.target, target) || (this.tensorStamps.get(e) ?? '') !== stamp) continue;
      if (e.opKeys.length <= opKeys.length && (start === null || e.opKeys.length > start.opKeys.length) && isPrefix(e.opKeys, opKeys)) start = e;
    }
    const graph = start?.graph ?? new StoreMatchGraph(store, { step: target.step, rank: target.rank });
    graph.store = store;
    const view = new OverlayGraph(graph);
    if (start) for (const change of start.view.changes()) view.applyChange(change);
    const outcomes: OpOutcome[] = start ? [...start.outcomes] : [];
    const first = outcomes.length;
    const stopAt = performance.now() + Math.min(REPLAY_SLICE_MS, budgetLeftMs() / 2);
    for (let i = first; i < ops.length; i++) {
      // A long replay keeps what it did and answers 202: the client's repeat goes on from here (the longest prefix).
      const pause = i > first && performance.now() > stopAt;
      let plan: MatchPlan | null = null;
      try {
        if (!pause) plan = planOf(view, task, ops[i], tensors);
      } catch (e) {
        if (!(e instanceof WorkBudgetExceeded) || i === first) throw e;
      }
      // A draft waiting for tensors: they are read in the background; the client's repeat plans the op again.
      const reading = plan !== null && plan.pending.length > 0 ? tensors!.read(draftNeeds(view, task, ops, i, plan, tensors!, stopAt)) : null;
      if (!plan || reading) {
        this.add(this.entry(target, opKeys.slice(0, i), metrics, graph, view, outcomes, stamp));
        throw reading ? new WorkInProgress(target.relPath, reading.done, Math.max(1, reading.total)) : new WorkInProgress(target.relPath, i, ops.length);
      }
      view.apply(plan);
      outcomes.push(outcomeOf(plan));
    }
    const entry = this.entry(target, opKeys, metrics, graph, view, outcomes, stamp);
    this.add(entry);
    return entry;
  }

  /** The tensors of a real-tensor file version and graph, kept for its later ops (least recently used dropped). */
  private tensorSource(target: OverlayTarget, root: string): TensorSource {
    const k = JSON.stringify([target.absPath, target.stamp, target.step, target.rank]);
    let source = this.tensorSources.get(k);
    if (source) this.tensorSources.delete(k);
    else source = new TensorSource(root, target);
    this.tensorSources.set(k, source);
    for (const old of this.tensorSources.keys()) {
      if (this.tensorSources.size <= MAX_TENSOR_SOURCES) break;
      this.tensorSources.delete(old);
    }
    return source;
  }

  /** The entry for `id` on this file version and graph, its store wrapper bound to `store`; undefined when not held. */
  get(id: string, target: OverlayTarget, store: GraphStore): OverlayEntry | undefined {
    const entry = this.entries.get(id);
    if (!entry || !sameTarget(entry.target, target)) return undefined;
    this.entries.delete(id);
    this.entries.set(id, entry);
    entry.graph.store = store;
    return entry;
  }

  /** The GraphStore graph routes answer from for `id` (one object per entry and file store: answerCache.ts). */
  store(id: string, target: OverlayTarget, base: GraphStore): OverlayStore | undefined {
    const entry = this.get(id, target, base);
    if (!entry) return undefined;
    let wrapper = this.wrappers.get(entry);
    if (wrapper?.base !== base) this.wrappers.set(entry, (wrapper = new OverlayStore(base, entry)));
    // Derived lists grow an entry after registration: the bound is checked again on use.
    this.evict();
    return wrapper;
  }

  private entry(
    target: OverlayTarget,
    opKeys: readonly string[],
    metrics: readonly PrecisionMetric[] | null,
    graph: StoreMatchGraph,
    view: OverlayGraph,
    outcomes: readonly OpOutcome[],
    tensorStamp: string,
  ): OverlayEntry {
    // The view goes on changing when this is a partial replay's snapshot: copy it.
    const own = new OverlayGraph(graph);
    for (const change of view.changes()) own.applyChange(change);
    const entry = new OverlayEntry(overlayId(target, opKeys, metrics, tensorStamp), target, opKeys, metrics, graph, own, [...outcomes], this.cellTables);
    this.tensorStamps.set(entry, tensorStamp);
    return entry;
  }

  private add(entry: OverlayEntry): void {
    this.entries.delete(entry.id);
    this.entries.set(entry.id, entry);
    this.evict();
  }

  private evict(): void {
    let bytes = 0;
    for (const e of this.entries.values()) bytes += e.bytes;
    for (const [id, e] of this.entries) {
      if (this.entries.size <= this.maxCount && bytes <= this.maxBytes) break;
      // The most recent entry stays even when alone over the bound: it is the one being answered.
      if (this.entries.size === 1) break;
      this.entries.delete(id);
      bytes -= e.bytes;
    }
  }
}

/**
 * The tensors op `i` (a draft) and, as far as the slice allows, the ops after it need, planned as drafts over a copy
 * of the view: a config of thousands of pairs reads its tensors in a few batches, not one round trip per pair.
 */
function draftNeeds(view: OverlayGraph, task: string, ops: readonly MatchOp[], i: number, plan: MatchPlan, tensors: TensorSource, stopAt: number): TensorRequest[] {
  const needs = [...plan.pending];
  const draft = new OverlayGraph(view.base);
  for (const change of view.changes()) draft.applyChange(change);
  draft.apply(plan);
  try {
    for (let j = i + 1; j < ops.length && needs.length < MAX_DRAFT_NEEDS && performance.now() < stopAt; j++) {
      const next = planOf(draft, task, ops[j], tensors);
      draft.apply(next);
      needs.push(...next.pending);
    }
  } catch (e) {
    if (!(e instanceof WorkBudgetExceeded)) throw e;
  }
  return needs;
}

/** The canonical text of one op (the id and prefix matching compare these). */
function opKey(op: MatchOp): string {
  return JSON.stringify([op.op, op.npu, op.bench, op.children ? 1 : 0]);
}

function overlayId(t: OverlayTarget, opKeys: readonly string[], metrics: readonly PrecisionMetric[] | null, tensorStamp: string): string {
  const h = createHash('sha256');
  // The compare.json version only for real-tensor files ('' otherwise), so other files keep their ids.
  const parts = [t.absPath, t.stamp, String(t.step), String(t.rank), JSON.stringify(metrics), ...(tensorStamp ? [tensorStamp] : []), ...opKeys];
  for (const part of parts) h.update(part).update('\0');
  return h.digest('hex').slice(0, 32);
}

function sameTarget(a: OverlayTarget, b: OverlayTarget): boolean {
  return a.absPath === b.absPath && a.stamp === b.stamp && a.step === b.step && a.rank === b.rank;
}

function isPrefix(prefix: readonly string[], of: readonly string[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== of[i]) return false;
  return true;
}

function planOf(view: OverlayGraph, task: string, op: MatchOp, tensors: TensorSource | undefined): MatchPlan {
  if (op.op === 'unmatch') return planUnmatch(view, task, op.npu, op.bench, { withChildren: op.children, tensors });
  if (op.op === 'config') return planConfig(view, task, [[op.npu, op.bench]], { tensors });
  return planMatch(view, task, op.npu, op.bench, { withChildren: op.children, tensors });
}

function outcomeOf(plan: MatchPlan): OpOutcome {
  const failed = plan.ops.filter((o) => !o.ok);
  return {
    done: plan.done,
    unchanged: plan.unchanged,
    failed: failed.slice(0, MAX_FAILURES_LISTED).map((o) => ({ npu: o.npu, bench: o.bench, reason: o.ok ? ('notFound' as const) : o.reason })),
    failedTotal: failed.length,
  };
}
