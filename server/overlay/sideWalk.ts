import type { NodeSummary, Side } from '../../src/core/api/types.js';
import { HttpError } from '../http/httpError.js';
import type { GraphSelector } from '../store/findQuery.js';
import type { GraphStore } from '../store/graphStore.js';
import { checkBudget, WorkInProgress } from '../store/workBudget.js';

/** Nodes a side may have for its list to be kept (about 80 bytes each: 78 MB for 10^6 nodes, bench/results/save.md). */
export const MAX_LISTED_NODES = 2_000_000;

/** `matchedNodeLink` kinds: none, the node's own ancestors and id (msprobe's same-name match), another (kept aside). */
const LINK_NONE = 0;
const LINK_SELF = 1;
const LINK_OTHER = 2;
/** A walked entry that is not listed: the synthetic "unreachable" group (its children's paths hold it). */
const SYNTHETIC = 4;

/**
 * Every node of one side in pre-order (the order search and filter list), each with its ancestors, read through the
 * store's own `/children` answers — an overlay store's walk sees its patched summaries — and kept once complete: for
 * the lists no index answers (the matched nodes; a precision filter under a metric choice). The walk goes on across
 * requests: each reads for at most `sliceMs`, then answers 202 with the progress (WorkInProgress) and the client asks
 * again. The synthetic "unreachable" group is walked into but not listed.
 *
 * Kept compact (a 10^6-node side in well under 150 MB): ids as UTF-8 in one buffer, the ancestors as a parent index,
 * the summary fields in typed arrays, and a link only when it is not the node's own path (msprobe matches by name, so
 * most links are); `summary(k)` / `path(k)` rebuild what the walk read.
 */
export class SideWalk {
  /** Entries walked (listed or not: see `listed`). */
  length = 0;
  private ids = Buffer.alloc(0);
  private idsEnd = 0;
  private idStart = new Uint32Array(0);
  private idEnd = new Uint32Array(0);
  private parent = new Int32Array(0);
  private depth = new Int32Array(0);
  private nodeType = new Int32Array(0);
  private childCounts = new Int32Array(0);
  /** NaN = null (summaries carry no NaN: msprobe-format.md's NaN index is null). */
  private precision = new Float64Array(0);
  private microStep = new Float64Array(0);
  /** 0 = null, else 1 + index into `overflowNames`. */
  private overflow = new Uint16Array(0);
  private flags = new Uint8Array(0);
  private readonly overflowNames: string[] = [];
  private readonly otherLinks = new Map<number, string[]>();
  private stack: Array<{ node: NodeSummary; parent: number }> | null = null;
  /** The ids of the last entry walked at each depth: in pre-order, the ancestors of the entry being walked. */
  private readonly chain: string[] = [];
  private done = false;

  constructor(
    private readonly side: Side,
    private readonly selector: GraphSelector,
    private readonly file: string,
  ) {}

  /** The complete list, walking on for at most `sliceMs` of this request first. */
  list(store: GraphStore, sliceMs: number): this {
    if (this.done) return this;
    const meta = store.meta(this.selector);
    const total = meta.nodeCounts[this.side] ?? 0;
    if (total > MAX_LISTED_NODES) {
      throw new HttpError(422, 'overlayTooLarge', { file: this.file, side: this.side, count: total, max: MAX_LISTED_NODES });
    }
    if (this.stack === null) {
      const root = meta.roots[this.side];
      const rootNode = root === undefined ? undefined : store.node({ side: this.side, nodeId: root, ...this.selector });
      this.stack = rootNode ? [{ node: rootNode, parent: -1 }] : [];
      // The unreachable group's entry comes on top of the side's nodes.
      this.grow(total + 1, Math.max(1024, total * 48));
    }
    const stopAt = performance.now() + sliceMs;
    const from = this.length;
    // An explicit stack: files nest thousands of levels deep. Each slice walks at least one node: it always advances.
    while (this.stack.length > 0) {
      checkBudget();
      if (this.length > from && performance.now() > stopAt) throw new WorkInProgress(this.file, this.length, total);
      const { node, parent } = this.stack.pop()!;
      const k = this.add(node, parent);
      if (node.childCount === 0) continue;
      const kids = store.children({ side: this.side, nodeId: node.id, ...this.selector })?.children ?? [];
      for (let i = kids.length - 1; i >= 0; i--) this.stack.push({ node: kids[i], parent: k });
    }
    this.stack = null;
    this.done = true;
    this.trim();
    return this;
  }

  /** Whether entry `k` is a node of the file (not the synthetic group). */
  listed(k: number): boolean {
    return (this.flags[k] & SYNTHETIC) === 0;
  }

  id(k: number): string {
    return this.ids.toString('utf8', this.idStart[k], this.idEnd[k]);
  }

  childCount(k: number): number {
    return this.childCounts[k];
  }

  precisionIndex(k: number): number | null {
    const v = this.precision[k];
    return Number.isNaN(v) ? null : v;
  }

  overflowLevel(k: number): string | null {
    return this.overflow[k] === 0 ? null : this.overflowNames[this.overflow[k] - 1];
  }

  linkLength(k: number): number {
    const kind = this.flags[k] & 3;
    return kind === LINK_NONE ? 0 : kind === LINK_SELF ? this.depth[k] + 1 : this.otherLinks.get(k)!.length;
  }

  /** The last element of the link (the counterpart's id), or undefined when unmatched. */
  counterpart(k: number): string | undefined {
    const kind = this.flags[k] & 3;
    if (kind === LINK_NONE) return undefined;
    if (kind === LINK_SELF) return this.id(k);
    const link = this.otherLinks.get(k)!;
    return link[link.length - 1];
  }

  /** Number of ancestors (the length of `path(k)`). */
  pathLength(k: number): number {
    return this.depth[k];
  }

  /** The ancestors' ids, root first. */
  path(k: number): string[] {
    const out = new Array<string>(this.depth[k]);
    for (let p = this.parent[k], i = out.length - 1; p >= 0; p = this.parent[p], i--) out[i] = this.id(p);
    return out;
  }

  /** The summary the walk read for entry `k`. */
  summary(k: number): NodeSummary {
    const kind = this.flags[k] & 3;
    const id = this.id(k);
    const matchedNodeLink = kind === LINK_NONE ? [] : kind === LINK_SELF ? [...this.path(k), id] : [...this.otherLinks.get(k)!];
    const micro = this.microStep[k];
    return {
      id,
      nodeType: this.nodeType[k],
      precisionIndex: this.precisionIndex(k),
      overflowLevel: this.overflowLevel(k),
      matchedNodeLink,
      childCount: this.childCounts[k],
      microStepId: Number.isNaN(micro) ? null : micro,
    };
  }

  /** Bytes held, for the registry's bound. */
  get bytes(): number {
    let links = 0;
    for (const link of this.otherLinks.values()) links += 64 + link.reduce((n, s) => n + 24 + s.length, 0);
    const arrays = [this.idStart, this.idEnd, this.parent, this.depth, this.nodeType, this.childCounts, this.precision, this.microStep, this.overflow, this.flags];
    return this.ids.length + arrays.reduce((n, a) => n + a.byteLength, 0) + links + 1024;
  }

  private add(node: NodeSummary, parent: number): number {
    const k = this.length;
    if (k >= this.parent.length) this.grow(2 * k + 1024, 0);
    const d = parent < 0 ? 0 : this.depth[parent] + 1;
    // UTF-8 takes at most 3 bytes per UTF-16 unit: room without measuring first.
    const room = 3 * node.id.length;
    if (this.idsEnd + room > this.ids.length) this.grow(0, 2 * (this.idsEnd + room));
    this.idStart[k] = this.idsEnd;
    this.idsEnd += this.ids.write(node.id, this.idsEnd, 'utf8');
    this.idEnd[k] = this.idsEnd;
    this.parent[k] = parent;
    this.depth[k] = d;
    this.chain.length = d;
    this.chain.push(node.id);
    this.length++;
    if (node.synthetic) {
      this.flags[k] = SYNTHETIC;
      return k;
    }
    this.nodeType[k] = node.nodeType;
    this.childCounts[k] = node.childCount;
    this.precision[k] = node.precisionIndex ?? NaN;
    this.microStep[k] = node.microStepId ?? NaN;
    this.overflow[k] = node.overflowLevel === null ? 0 : this.overflowCode(node.overflowLevel);
    const link = node.matchedNodeLink;
    if (link.length === 0) this.flags[k] = LINK_NONE;
    else if (this.isOwnPath(link)) this.flags[k] = LINK_SELF;
    else {
      this.flags[k] = LINK_OTHER;
      this.otherLinks.set(k, [...link]);
    }
    return k;
  }

  /** Whether `link` is the entry just added's ancestors and id (`chain`). */
  private isOwnPath(link: readonly string[]): boolean {
    if (link.length !== this.chain.length) return false;
    for (let i = link.length - 1; i >= 0; i--) if (link[i] !== this.chain[i]) return false;
    return true;
  }

  private overflowCode(level: string): number {
    let at = this.overflowNames.indexOf(level);
    if (at < 0) {
      // Levels are a handful of words (msprobe-format.md); a file with thousands is malformed.
      if (this.overflowNames.length >= 0xfffe) throw new HttpError(422, 'fileUnreadable', { file: this.file, problem: 'too many distinct overflow levels' });
      at = this.overflowNames.push(level) - 1;
    }
    return at + 1;
  }

  /** Room for `entries` entries and `idBytes` bytes of ids (0: as they are). */
  private grow(entries: number, idBytes: number): void {
    if (entries > this.parent.length) {
      const copy = <T extends Uint32Array | Int32Array | Float64Array | Uint16Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(entries);
        b.set(a);
        return b;
      };
      this.idStart = copy(this.idStart, (n) => new Uint32Array(n));
      this.idEnd = copy(this.idEnd, (n) => new Uint32Array(n));
      this.parent = copy(this.parent, (n) => new Int32Array(n));
      this.depth = copy(this.depth, (n) => new Int32Array(n));
      this.nodeType = copy(this.nodeType, (n) => new Int32Array(n));
      this.childCounts = copy(this.childCounts, (n) => new Int32Array(n));
      this.precision = copy(this.precision, (n) => new Float64Array(n));
      this.microStep = copy(this.microStep, (n) => new Float64Array(n));
      this.overflow = copy(this.overflow, (n) => new Uint16Array(n));
      this.flags = copy(this.flags, (n) => new Uint8Array(n));
    }
    if (idBytes > this.ids.length) {
      const ids = Buffer.allocUnsafe(idBytes);
      this.ids.copy(ids, 0, 0, this.idsEnd);
      this.ids = ids;
    }
  }

  /** Gives back the room the walk did not use. */
  private trim(): void {
    const n = this.length;
    if (this.ids.length > this.idsEnd) this.ids = Buffer.from(this.ids.subarray(0, this.idsEnd));
    if (this.parent.length === n) return;
    this.idStart = this.idStart.slice(0, n);
    this.idEnd = this.idEnd.slice(0, n);
    this.parent = this.parent.slice(0, n);
    this.depth = this.depth.slice(0, n);
    this.nodeType = this.nodeType.slice(0, n);
    this.childCounts = this.childCounts.slice(0, n);
    this.precision = this.precision.slice(0, n);
    this.microStep = this.microStep.slice(0, n);
    this.overflow = this.overflow.slice(0, n);
    this.flags = this.flags.slice(0, n);
  }
}
