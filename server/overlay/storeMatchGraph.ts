import type { NodeDetail, NodeSummary, Side } from '../../src/core/api/types.js';
import type { Items, MatchGraph, MatchNode } from '../../src/core/match/index.js';
import type { GraphSelector } from '../store/findQuery.js';
import type { GraphStore, NodeItems } from '../store/graphStore.js';

/** Listed nodes whose items one store call reads (a 5,000-node module in a few calls). */
const ITEMS_BATCH = 1024;

/**
 * The match engine's view of one graph (step, rank) of an opened file (src/core/match MatchGraph). Nodes are lazy:
 * a child listed by `/children` is known from its summary (type, link, parent), and its record (items, and the
 * parent of a node reached otherwise) is read only when the engine compares it — matching a 5,000-node module with
 * its children reads the children lists and the records of the pairs, not every record twice.
 *
 * One graph per file version: nodes read stay valid while the file's stamp does. `store` is the store currently open
 * for that version (the store cache may close and reopen it); the registry points it at each request's store.
 */
export class StoreMatchGraph implements MatchGraph {
  private readonly nodes = new Map<string, StoreNode | null>();
  /** Records read and kept (for the registry's memory estimate). */
  recordsRead = 0;
  /** Ids of the synthetic "unreachable" group per side (it is no node of the file: never matched, never linked). */
  private readonly synthetic = new Set<string>();

  constructor(
    public store: GraphStore,
    readonly graph: GraphSelector,
  ) {}

  node(side: Side, id: string): StoreNode | undefined {
    const k = key(side, id);
    let n = this.nodes.get(k);
    if (n === undefined) {
      const d = this.synthetic.has(k) ? undefined : this.store.node({ side, nodeId: id, ...this.graph });
      if (d) this.recordsRead++;
      if (d?.synthetic) this.synthetic.add(k);
      n = d && !d.synthetic ? new StoreNode(this, side, d, this.parentOf(side, d), d) : null;
      this.nodes.set(k, n);
    }
    return n ?? undefined;
  }

  /**
   * Reads the summaries of the `ids` not known yet in one store call: a node found is known from its summary like a
   * listed child (its record read only if the engine needs its parent), one not found is remembered as absent.
   * Partners of a module's children are looked up this way (most are absent or already matched).
   */
  prefetch(side: Side, ids: readonly string[]): void {
    const todo = ids.filter((id) => !this.nodes.has(key(side, id)) && !this.synthetic.has(key(side, id)));
    if (todo.length === 0) return;
    const found = this.store.summaries({ side, ids: todo, ...this.graph });
    todo.forEach((id, k) => {
      const s = found[k];
      // A synthetic group is settled by node() as before.
      if (s?.synthetic) return;
      const node = s ? new StoreNode(this, side, s, undefined) : null;
      this.nodes.set(key(side, id), node);
      if (node) this.unread[side].push(node);
    });
  }

  /** The node's summary as the file has it (the filter compares a changed node's old and new state). */
  summary(side: Side, id: string): NodeSummary | undefined {
    return this.node(side, id)?.summary;
  }

  /** The full record as the store answers it. */
  detail(side: Side, id: string): NodeDetail | undefined {
    return this.node(side, id)?.detail();
  }

  /** Children ids in file order, each child remembered from its summary. */
  childIds(side: Side, id: string): string[] {
    const answer = this.store.children({ side, nodeId: id, ...this.graph });
    if (!answer) return [];
    const ids: string[] = [];
    for (const c of answer.children) {
      const k = key(side, c.id);
      if (c.synthetic) {
        this.synthetic.add(k);
        continue;
      }
      ids.push(c.id);
      // Inside the unreachable group a child's parent is whatever the record says; elsewhere it is `id`.
      if (!this.nodes.has(k)) {
        const node = new StoreNode(this, side, c, this.synthetic.has(key(side, id)) ? undefined : id);
        this.nodes.set(k, node);
        this.unread[side].push(node);
      }
    }
    return ids;
  }

  /** Nodes listed by childIds whose items are not read yet: read together when the engine first compares one. */
  private readonly unread: Record<Side, StoreNode[]> = { npu: [], bench: [] };

  /** Reads the items of `node` and of the other listed nodes waiting (up to ITEMS_BATCH), in one store call. */
  readItems(node: StoreNode): void {
    const waiting = this.unread[node.side];
    const batch = [node, ...waiting.splice(0, ITEMS_BATCH).filter((n) => n !== node && !n.hasItems)];
    const found = this.store.items({ side: node.side, ids: batch.map((n) => n.id), ...this.graph });
    batch.forEach((n, k) => n.setItems(found[k] ?? { inputData: {}, outputData: {} }));
    this.recordsRead += batch.length;
  }

  /** The parent the engine walks for a counterpart's path: the unreachable group is skipped (its tops have none). */
  parentOf(side: Side, d: NodeDetail): string | null {
    const p = d.path;
    if (p.length === 0) return null;
    if (p.length >= 2 && this.isGroup(side, p[1])) return p.length > 2 ? p[p.length - 1] : null;
    return p[p.length - 1];
  }

  /** Whether `id` is the store's synthetic unreachable group on `side`. */
  isGroup(side: Side, id: string): boolean {
    const k = key(side, id);
    if (this.synthetic.has(k)) return true;
    // Only the root's last child can be the group; one lookup per side settles it.
    if (!this.nodes.has(k)) this.node(side, id);
    return this.synthetic.has(k);
  }
}

export class StoreNode implements MatchNode {
  private record: NodeDetail | undefined;
  private items: NodeItems | undefined;
  private subs: readonly string[] | undefined;
  private parent: string | null | undefined;

  constructor(
    private readonly graph: StoreMatchGraph,
    readonly side: Side,
    readonly summary: NodeSummary,
    parent: string | null | undefined,
    record?: NodeDetail,
  ) {
    this.parent = parent;
    this.record = record;
  }

  detail(): NodeDetail | undefined {
    if (this.record === undefined) {
      this.record = this.graph.store.node({ side: this.side, nodeId: this.summary.id, ...this.graph.graph });
      this.graph.recordsRead++;
    }
    return this.record;
  }

  get id(): string {
    return this.summary.id;
  }
  get nodeType(): number {
    return this.summary.nodeType;
  }
  get upnode(): string | null {
    if (this.parent === undefined) {
      const d = this.detail();
      this.parent = d ? this.graph.parentOf(this.side, d) : null;
    }
    return this.parent;
  }
  get subnodes(): readonly string[] {
    this.subs ??= this.summary.childCount === 0 ? [] : this.graph.childIds(this.side, this.summary.id);
    return this.subs;
  }
  get hasItems(): boolean {
    return this.items !== undefined || this.record !== undefined;
  }
  setItems(items: NodeItems): void {
    this.items = items;
  }
  /** The items from the record when read, else from a batch read with the node's listed siblings (readItems). */
  private itemsOf(): NodeItems {
    if (this.record) return this.record;
    if (!this.items) this.graph.readItems(this);
    return this.items!;
  }
  get inputData(): Items {
    return this.itemsOf().inputData;
  }
  get outputData(): Items {
    return this.itemsOf().outputData;
  }
  get matchedNodeLink(): readonly string[] {
    return this.summary.matchedNodeLink;
  }
  get precisionIndex(): number | null {
    return this.summary.precisionIndex;
  }
}

function key(side: Side, id: string): string {
  return side + '\u0000' + id;
}
