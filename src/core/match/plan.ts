import type { MatchFailure } from '../api/overlay.js';
import type { Side } from '../api/types.js';
import { compareMatched, isMatchTask, unmatchedData, type Items } from './compare.js';
import { childGroupKey, partnerName } from './names.js';
import { unmatchedRealData, type TensorLookup, type TensorRequest } from './realCompare.js';

/**
 * Planning manual match / unmatch operations (reference-viewer.md §4.4): which node pairs change and how, without
 * changing anything. A plan is computed against a graph view that sees its own earlier steps, so a caller applies it
 * as a whole (OverlayGraph.apply) or writes its changes out.
 */

/** One node as the engine reads it. Adapters over `.vis` / `.vis.db` stores may compute fields lazily (getters). */
export interface MatchNode {
  readonly id: string;
  /** msprobe node_type: 0 module, 1 API, 8 fusion, 9 API collection. */
  readonly nodeType: number;
  /** Parent id; null for the root and for nodes msprobe left without a parent (`"None"` / `''` in the files). */
  readonly upnode: string | null;
  readonly subnodes: readonly string[];
  /** Read only for the pairs being compared. */
  readonly inputData: Items;
  readonly outputData: Items;
  /** Counterpart path, root first, counterpart id last; [] when unmatched. */
  readonly matchedNodeLink: readonly string[];
  /** Carried for callers (the overlay's view of a node); the engine itself never reads it. */
  readonly precisionIndex: number | null;
}

/** A compare file's two graphs (one step and rank). Sides are 'npu' and 'bench'; roots are whatever the file names. */
export interface MatchGraph {
  node(side: Side, id: string): MatchNode | undefined;
  /** Optional hint: these nodes (some perhaps absent) are looked up next, so a store can read them in one call. */
  prefetch?(side: Side, ids: readonly string[]): void;
}

/** How one node changes. Fields left undefined keep their value. */
export interface NodeChange {
  readonly side: Side;
  readonly id: string;
  readonly matchedNodeLink: readonly string[];
  /** NPU nodes only: the new `precision_index`; null = removed. Bench nodes never get one (msprobe gives them none). */
  readonly precisionIndex?: number | null;
  /** Python type of precisionIndex in the original (see CompareResult.precisionIsInt). */
  readonly precisionIsInt?: boolean;
  /** New items (summary matches and unmatches of NPU nodes); undefined = unchanged. */
  readonly inputData?: Items;
  readonly outputData?: Items;
}

export type PairKind = 'match' | 'unmatch';
/** `pair`: a pair asked for, or found among the children (depth > 0), or a config entry; `partner`: its forward↔backward twin. */
export type PairRole = 'pair' | 'partner';

interface PairOpBase {
  readonly kind: PairKind;
  readonly role: PairRole;
  /** 0 for the pair asked for (and its partner), n for children n levels below it. */
  readonly depth: number;
  readonly npu: string;
  readonly bench: string;
}
export interface PairDone extends PairOpBase {
  readonly ok: true;
  readonly npuChange: NodeChange;
  readonly benchChange: NodeChange;
}
export interface PairFailed extends PairOpBase {
  readonly ok: false;
  readonly reason: MatchFailure;
}
export type PairOp = PairDone | PairFailed;

export interface MatchPlan {
  /** In the order the original performs them: pair, its partner, then children depth-first (each with its partner). */
  readonly ops: readonly PairOp[];
  readonly done: number;
  readonly failed: number;
  /** Partners, children and config entries already in the asked-for state (no op; not a failure). */
  readonly unchanged: number;
  /**
   * Real-tensor files: tensor pairs not read yet. Non-empty means the plan is a draft (those pairs were assumed to
   * compare, to find every pair the op reaches): read them, then plan again.
   */
  readonly pending: readonly TensorRequest[];
}

export interface PlanOptions {
  /** Also pair (unpair) the children, recursively (the UI's "also operate on children", on by default there). */
  withChildren?: boolean;
  /** Real-tensor (`all`) files: the dump's tensors, without which their matches are refused (realCompare.ts). */
  tensors?: TensorLookup;
}

/**
 * A MatchGraph with changes laid over it; the base is never modified. The planner uses one internally; the server
 * keeps one per overlay to answer graph requests and replay further operations.
 */
export class OverlayGraph implements MatchGraph {
  private readonly changed: Record<Side, Map<string, ChangedNode>> = { npu: new Map(), bench: new Map() };

  constructor(readonly base: MatchGraph) {}

  node(side: Side, id: string): MatchNode | undefined {
    return this.changed[side].get(id) ?? this.base.node(side, id);
  }

  prefetch(side: Side, ids: readonly string[]): void {
    this.base.prefetch?.(side, ids.filter((id) => !this.changed[side].has(id)));
  }

  /** Applies every successful op of a plan (or a list of ops) in order. */
  apply(plan: MatchPlan | readonly PairOp[]): void {
    for (const op of 'ops' in plan ? plan.ops : plan) {
      if (!op.ok) continue;
      this.applyChange(op.npuChange);
      this.applyChange(op.benchChange);
    }
  }

  applyChange(change: NodeChange): void {
    const changed = this.changed[change.side];
    const prev = changed.get(change.id);
    const base = prev ? prev.base : this.base.node(change.side, change.id);
    if (!base) return;
    changed.set(change.id, new ChangedNode(base, prev ? mergeChange(prev.change, change) : change));
  }

  /** Every node changed so far, with its accumulated change (for writers: what to write where); NPU first. */
  *changes(): IterableIterator<NodeChange> {
    for (const n of this.changed.npu.values()) yield n.change;
    for (const n of this.changed.bench.values()) yield n.change;
  }
}

function mergeChange(a: NodeChange, b: NodeChange): NodeChange {
  return {
    side: b.side,
    id: b.id,
    matchedNodeLink: b.matchedNodeLink,
    precisionIndex: b.precisionIndex !== undefined ? b.precisionIndex : a.precisionIndex,
    precisionIsInt: b.precisionIndex !== undefined ? b.precisionIsInt : a.precisionIsInt,
    inputData: b.inputData ?? a.inputData,
    outputData: b.outputData ?? a.outputData,
  };
}

class ChangedNode implements MatchNode {
  constructor(
    readonly base: MatchNode,
    readonly change: NodeChange,
  ) {}
  get id(): string {
    return this.base.id;
  }
  get nodeType(): number {
    return this.base.nodeType;
  }
  get upnode(): string | null {
    return this.base.upnode;
  }
  get subnodes(): readonly string[] {
    return this.base.subnodes;
  }
  get inputData(): Items {
    return this.change.inputData ?? this.base.inputData;
  }
  get outputData(): Items {
    return this.change.outputData ?? this.base.outputData;
  }
  get matchedNodeLink(): readonly string[] {
    return this.change.matchedNodeLink;
  }
  get precisionIndex(): number | null {
    return this.change.precisionIndex !== undefined ? this.change.precisionIndex : this.base.precisionIndex;
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const counterpart = (n: MatchNode): string | undefined => n.matchedNodeLink[n.matchedNodeLink.length - 1];

/** Matched to each other: each one's link ends with the other's id (msprobe's exact matches have equal ids). */
function paired(n: MatchNode, b: MatchNode): boolean {
  return counterpart(n) === b.id && counterpart(b) === n.id;
}

class Planner {
  readonly view: OverlayGraph;
  readonly ops: PairOp[] = [];
  readonly pending: TensorRequest[] = [];
  unchanged = 0;
  private readonly paths: Record<Side, Map<string, readonly string[]>> = { npu: new Map(), bench: new Map() };

  constructor(
    graph: MatchGraph,
    readonly task: string,
    private readonly tensors?: TensorLookup,
  ) {
    this.view = new OverlayGraph(graph);
  }

  plan(): MatchPlan {
    const done = this.ops.filter((o) => o.ok).length;
    return { ops: this.ops, done, failed: this.ops.length - done, unchanged: this.unchanged, pending: this.pending };
  }

  private record(op: PairOp): void {
    this.ops.push(op);
    this.view.apply([op]);
  }

  fail(kind: PairKind, role: PairRole, depth: number, npu: string, bench: string, reason: MatchFailure): void {
    this.record({ kind, role, depth, npu, bench, ok: false, reason });
  }

  /** fail() for a pair that is not even tried; false for "not (un)matched". */
  private refuse(kind: PairKind, depth: number, npu: string, bench: string, reason: MatchFailure, role: PairRole = 'pair'): false {
    this.fail(kind, role, depth, npu, bench, reason);
    return false;
  }

  /**
   * The counterpart's ancestor path, root first, ending with its id (msprobe-format.md §3.2: `ancestors(b) + [b.id]`).
   * The original walks `upnode` the same way but, on `.vis` files, also keeps their root's `"None"` parent string as a
   * first element; on `.vis.db` it stores `[counterpart]` alone. The viewer only reads the last element.
   */
  path(side: Side, id: string): readonly string[] {
    // Walk up to the root or to a node whose path is known; a parent missing from the graph still names an ancestor
    // (and ends the walk), and a cycle in a broken file ends it too instead of looping.
    const paths = this.paths[side];
    const chain: string[] = [];
    const seen = new Set<string>();
    let prefix: readonly string[] = [];
    for (let cur: string | null = id; cur !== null; cur = this.view.node(side, cur)?.upnode ?? null) {
      const known = paths.get(cur);
      if (known) {
        prefix = known;
        break;
      }
      if (seen.has(cur)) break;
      seen.add(cur);
      chain.push(cur);
    }
    let p = prefix;
    for (let i = chain.length - 1; i >= 0; i--) {
      p = [...p, chain[i]];
      paths.set(chain[i], p);
    }
    return p;
  }

  /**
   * Adds one pair and, when `partner`, its forward↔backward twin. Returns whether the pair itself was matched (the
   * original recurses into children only then). A missing node, a node_type mismatch or a node already matched stops
   * before the partner; a comparison that fails does not (the original still pairs the partner). `strict`: the pair
   * the user asked for, which fails when already matched even to each other; children and config entries that are
   * count as unchanged.
   */
  add(npuId: string, benchId: string, depth: number, partner: boolean, strict: boolean): boolean {
    const n = this.view.node('npu', npuId);
    const b = this.view.node('bench', benchId);
    if (!n || !b) return this.refuse('match', depth, npuId, benchId, 'notFound');
    if (n.nodeType !== b.nodeType) return this.refuse('match', depth, npuId, benchId, 'typeMismatch');
    if (!strict && paired(n, b)) {
      this.unchanged++;
      return false;
    }
    if (n.matchedNodeLink.length > 0 || b.matchedNodeLink.length > 0) {
      return this.refuse('match', depth, npuId, benchId, 'alreadyMatched');
    }
    const ok = this.compareAndLink(n, b, 'pair', depth);
    if (partner) this.addPartner(npuId, benchId, depth);
    return ok;
  }

  private addPartner(npuId: string, benchId: string, depth: number): void {
    const pn = partnerName(npuId);
    const pb = partnerName(benchId);
    const n = pn === null ? undefined : this.view.node('npu', pn);
    const b = pb === null ? undefined : this.view.node('bench', pb);
    // No twin on either side (inference dumps, collections): nothing to pair, and nothing went wrong.
    if (!n || !b) return;
    if (paired(n, b)) this.unchanged++;
    else if (n.nodeType !== b.nodeType) this.fail('match', 'partner', depth, n.id, b.id, 'typeMismatch');
    else if (n.matchedNodeLink.length > 0 || b.matchedNodeLink.length > 0) this.fail('match', 'partner', depth, n.id, b.id, 'alreadyMatched');
    else this.compareAndLink(n, b, 'partner', depth);
  }

  private compareAndLink(n: MatchNode, b: MatchNode, role: PairRole, depth: number): boolean {
    const result = compareMatched(this.task, n, b, this.tensors);
    if (result.ok === false) {
      this.fail('match', role, depth, n.id, b.id, result.reason);
      return false;
    }
    const npuChange: Mutable<NodeChange> = { side: 'npu', id: n.id, matchedNodeLink: this.path('bench', b.id) };
    if (result.ok === 'pending') {
      // Assumed to compare, so the draft reaches every pair the real plan can (a failure only stops a recursion).
      this.pending.push(...result.needs);
    } else {
      npuChange.precisionIndex = result.precisionIndex;
      npuChange.precisionIsInt = result.precisionIsInt;
      if (this.task === 'summary' || this.task === 'all') {
        npuChange.inputData = result.inputData;
        npuChange.outputData = result.outputData;
      }
    }
    const benchChange: NodeChange = { side: 'bench', id: b.id, matchedNodeLink: this.path('npu', n.id) };
    this.record({ kind: 'match', role, depth, npu: n.id, bench: b.id, ok: true, npuChange, benchChange });
    return true;
  }

  /**
   * "With children" (§4.4): each side's unmatched children grouped by childGroupKey, same-key groups zipped in order,
   * each pair added with its partner, recursing into a pair that matched when both have children. Groups are taken
   * in the order of the NPU children (the original iterates a Python set, in no fixed order).
   */
  addChildren(npuSubs: readonly string[], benchSubs: readonly string[], depth: number): void {
    const npuGroups = this.groups('npu', npuSubs);
    const benchGroups = this.groups('bench', benchSubs);
    // Each pair looks up its forward/backward partner (addPartner): one read for the siblings' partners.
    for (const [side, subs] of [['npu', npuSubs], ['bench', benchSubs]] as const) {
      const partners = subs.map(partnerName).filter((p): p is string => p !== null);
      if (partners.length > 0) this.view.prefetch(side, partners);
    }
    for (const [k, npuList] of npuGroups) {
      const benchList = benchGroups.get(k);
      if (!benchList) continue;
      const count = Math.min(npuList.length, benchList.length);
      for (let i = 0; i < count; i++) {
        if (!this.add(npuList[i], benchList[i], depth, true, false)) continue;
        const n = this.view.node('npu', npuList[i])!;
        const b = this.view.node('bench', benchList[i])!;
        if (n.subnodes.length > 0 && b.subnodes.length > 0) this.addChildren(n.subnodes, b.subnodes, depth + 1);
      }
    }
  }

  private groups(side: Side, ids: readonly string[]): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const id of ids) {
      const node = this.view.node(side, id);
      if (!node || node.matchedNodeLink.length > 0) continue;
      const k = childGroupKey(id, node.nodeType);
      const list = out.get(k);
      if (list) list.push(id);
      else out.set(k, [id]);
    }
    return out;
  }

  /**
   * Deletes one pair (the original's delete: it must be matched to each other) and, when `partner`, its twin.
   * Returns whether the pair itself was unmatched. The partner is tried whatever happened to the pair, as in the
   * original; a twin that is not matched at all is left alone.
   */
  remove(npuId: string, benchId: string, depth: number, partner: boolean): boolean {
    const ok = this.removeOne(npuId, benchId, 'pair', depth);
    if (partner) {
      const pn = partnerName(npuId);
      const pb = partnerName(benchId);
      const n = pn === null ? undefined : this.view.node('npu', pn);
      const b = pb === null ? undefined : this.view.node('bench', pb);
      if (n && b) {
        if (n.matchedNodeLink.length === 0 && b.matchedNodeLink.length === 0) this.unchanged++;
        else this.removeOne(n.id, b.id, 'partner', depth);
      }
    }
    return ok;
  }

  private removeOne(npuId: string, benchId: string, role: PairRole, depth: number): boolean {
    const n = this.view.node('npu', npuId);
    const b = this.view.node('bench', benchId);
    if (!n || !b) return this.refuse('unmatch', depth, npuId, benchId, 'notFound', role);
    if (n.matchedNodeLink.length === 0 || b.matchedNodeLink.length === 0) {
      return this.refuse('unmatch', depth, npuId, benchId, 'notMatched', role);
    }
    if (!paired(n, b)) return this.refuse('unmatch', depth, npuId, benchId, 'notPaired', role);
    const npuChange: Mutable<NodeChange> = { side: 'npu', id: npuId, matchedNodeLink: [], precisionIndex: null };
    if (this.task === 'summary') {
      npuChange.inputData = unmatchedData(n.inputData);
      npuChange.outputData = unmatchedData(n.outputData);
    } else if (this.task === 'all') {
      npuChange.inputData = unmatchedRealData(n.inputData);
      npuChange.outputData = unmatchedRealData(n.outputData);
    }
    const benchChange: NodeChange = { side: 'bench', id: benchId, matchedNodeLink: [] };
    this.record({ kind: 'unmatch', role, depth, npu: npuId, bench: benchId, ok: true, npuChange, benchChange });
    return true;
  }

  /** "With children" for unmatch (§4.4): walks the NPU subtree and deletes each matched child with its counterpart. */
  removeChildren(npuSubs: readonly string[], depth: number): void {
    for (const id of npuSubs) {
      const n = this.view.node('npu', id);
      const benchId = n && counterpart(n);
      if (!n || benchId === undefined) continue;
      if (!this.remove(id, benchId, depth, true)) continue;
      const b = this.view.node('bench', benchId);
      if (n.subnodes.length > 0 && b && b.subnodes.length > 0) this.removeChildren(n.subnodes, depth + 1);
    }
  }
}

function refused(kind: PairKind, npu: string, bench: string): MatchPlan {
  return { ops: [{ kind, role: 'pair', depth: 0, npu, bench, ok: false, reason: 'taskNotSupported' }], done: 0, failed: 1, unchanged: 0, pending: [] };
}

/**
 * Statistics and md5 files; real-tensor files when the caller can read their tensors (an unmatch reads none, but
 * without a caller that can, they are refused as the original refuses them: `taskTypeError`).
 */
function supported(task: string, tensors: TensorLookup | undefined): boolean {
  return isMatchTask(task) || (task === 'all' && tensors !== undefined);
}

/**
 * Match an unmatched NPU node with an unmatched Bench node of the same node_type, with its forward↔backward partner
 * and, when `withChildren`, their children (§4.4). Statistics (`summary`) and `md5` files, and real-tensor (`all`)
 * files given `options.tensors`.
 */
export function planMatch(graph: MatchGraph, task: string, npuId: string, benchId: string, options: PlanOptions = {}): MatchPlan {
  if (!supported(task, options.tensors)) return refused('match', npuId, benchId);
  const p = new Planner(graph, task, options.tensors);
  if (p.add(npuId, benchId, 0, true, true) && options.withChildren) {
    const n = p.view.node('npu', npuId)!;
    const b = p.view.node('bench', benchId)!;
    if (n.subnodes.length > 0 && b.subnodes.length > 0) p.addChildren(n.subnodes, b.subnodes, 1);
  }
  return p.plan();
}

/** Unmatch a pair matched to each other, with its partner and, when `withChildren`, the matched NPU subtree (§4.4). */
export function planUnmatch(graph: MatchGraph, task: string, npuId: string, benchId: string, options: PlanOptions = {}): MatchPlan {
  if (!supported(task, options.tensors)) return refused('unmatch', npuId, benchId);
  const p = new Planner(graph, task);
  if (p.remove(npuId, benchId, 0, true) && options.withChildren) {
    const n = p.view.node('npu', npuId)!;
    const b = p.view.node('bench', benchId);
    if (n.subnodes.length > 0 && b && b.subnodes.length > 0) p.removeChildren(n.subnodes, 1);
  }
  return p.plan();
}

/**
 * A `.vis.config`'s pairs (§4.4 "applying one matches each pair without recursion"): each entry alone, without its
 * partner or children — a config written by the original already lists partners and children as entries of their own.
 * An entry already matched to each other counts as unchanged, so importing a config twice changes nothing.
 */
export function planConfig(graph: MatchGraph, task: string, pairs: Iterable<readonly [string, string]>, options: Pick<PlanOptions, 'tensors'> = {}): MatchPlan {
  const list = [...pairs];
  if (!supported(task, options.tensors)) {
    return {
      ops: list.map(([npu, bench]): PairOp => ({ kind: 'match', role: 'pair', depth: 0, npu, bench, ok: false, reason: 'taskNotSupported' })),
      done: 0,
      failed: list.length,
      unchanged: 0,
      pending: [],
    };
  }
  const p = new Planner(graph, task, options.tensors);
  for (const [npu, bench] of list) p.add(npu, bench, 0, false, false);
  return p.plan();
}
