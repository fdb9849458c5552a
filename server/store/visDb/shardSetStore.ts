import type { ChildrenResponse, FindResponse, GraphMeta, NodeDetail, NodeSummary, Side, WorstResponse } from '../../../src/core/api/types.js';
import type { ShardMeta } from '../../graph/shardMeta.js';
import type { FilterQuery, GraphSelector, SearchQuery } from '../findQuery.js';
import { UnknownGraphError, type ChildrenQuery, type GraphStore, type NodeItems } from '../graphStore.js';
import type { RatedNodes, WorstQuery } from '../worstQuery.js';
import type { VisDbStore } from './visDbStore.js';

/**
 * The shard `.vis.db` files of one `graph --shard` build (issue 19) as one graph, without merging them: steps, ranks
 * and step × rank pairs are the union of the shards' slices, and each request is answered by the VisDbStore of the
 * shard holding its (step, rank), opened on first use. A node's `matched_distributed` peer at another rank is that
 * rank's graph here too, whichever shard holds it. Nothing is written beside the files (openDb.ts opens them
 * read-only; derived data goes to the cache directory only).
 */

export interface ShardSetMember<R> {
  ref: R;
  meta: ShardMeta;
}

/** Shard stores kept open per set: SQLite handles, one file descriptor each; the least recently used closes. */
const MAX_OPEN_SHARDS = 32;

export class ShardSetStore<R extends { absPath: string; relPath: string }> implements GraphStore {
  private readonly holders = new Map<string, ShardSetMember<R>>();
  private readonly steps: number[];
  private readonly ranks: number[];
  private readonly graphs: Array<[number, number]>;
  /** Open shard stores by path, least recently used first. */
  private readonly opened = new Map<string, VisDbStore>();

  constructor(
    private readonly set: { file: string; run: string; tag: string },
    members: ReadonlyArray<ShardSetMember<R>>,
    private readonly openShard: (ref: R) => VisDbStore,
    private readonly maxOpen = MAX_OPEN_SHARDS,
  ) {
    for (const m of members) for (const [s, r] of m.meta.pairs) this.holders.set(`${s}/${r}`, m);
    this.graphs = [...this.holders.keys()]
      .map((k) => k.split('/').map(Number) as [number, number])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    this.steps = [...new Set(this.graphs.map(([s]) => s))].sort((a, b) => a - b);
    this.ranks = [...new Set(this.graphs.map(([, r]) => r))].sort((a, b) => a - b);
  }

  /** The shard file that holds the graph, e.g. for a reader that opens the file itself (the heatmap). */
  fileOf(q: GraphSelector): R {
    return this.holder(q).member.ref;
  }

  meta(q: GraphSelector = {}): GraphMeta {
    const { step, rank, store } = this.at(q);
    return { ...store.meta({ step, rank }), run: this.set.run, tag: this.set.tag, steps: this.steps, ranks: this.ranks, graphs: this.graphs };
  }

  children(q: ChildrenQuery): ChildrenResponse | undefined {
    const { step, rank, store } = this.at(q);
    return store.children({ ...q, step, rank });
  }

  node(q: { side: Side; nodeId: string } & GraphSelector): NodeDetail | undefined {
    const { step, rank, store } = this.at(q);
    return store.node({ ...q, step, rank });
  }

  summaries(q: { side: Side; ids: readonly string[] } & GraphSelector): Array<NodeSummary | undefined> {
    const { step, rank, store } = this.at(q);
    return store.summaries({ ...q, step, rank });
  }

  items(q: { side: Side; ids: readonly string[] } & GraphSelector): Array<NodeItems | undefined> {
    const { step, rank, store } = this.at(q);
    return store.items({ ...q, step, rank });
  }

  search(q: SearchQuery): FindResponse {
    const { step, rank, store } = this.at(q);
    return store.search({ ...q, step, rank });
  }

  filter(q: FilterQuery): FindResponse {
    const { step, rank, store } = this.at(q);
    return store.filter({ ...q, step, rank });
  }

  worst(q: WorstQuery): WorstResponse {
    const { step, rank, store } = this.at(q);
    return store.worst({ ...q, step, rank });
  }

  rated(q: { side: Side } & GraphSelector): RatedNodes {
    const { step, rank, member } = this.holder(q);
    const { values } = this.shard(member).rated({ ...q, step, rank });
    // Names are read when asked, from the shard's store as it is then (reopened if it was closed meanwhile).
    return { values, idAt: (k) => this.shard(member).rated({ ...q, step, rank }).idAt(k) };
  }

  close(): void {
    for (const store of this.opened.values()) store.close();
    this.opened.clear();
  }

  private at(q: GraphSelector): { step: number; rank: number; store: VisDbStore } {
    const { step, rank, member } = this.holder(q);
    return { step, rank, store: this.shard(member) };
  }

  /**
   * The requested graph and its shard. Unspecified, the step and rank are those of the first pair that matches what is
   * given (a set missing its first shard has no graph at the first step and rank).
   */
  private holder(q: GraphSelector): { step: number; rank: number; member: ShardSetMember<R> } {
    const first = this.graphs.find(([s, r]) => (q.step === undefined || s === q.step) && (q.rank === undefined || r === q.rank));
    const step = q.step ?? first?.[0] ?? this.steps[0] ?? 0;
    const rank = q.rank ?? first?.[1] ?? this.ranks[0] ?? 0;
    const member = this.holders.get(`${step}/${rank}`);
    if (!member) throw new UnknownGraphError(this.set.file, step, rank);
    return { step, rank, member };
  }

  private shard(member: ShardSetMember<R>): VisDbStore {
    const key = member.ref.absPath;
    let store = this.opened.get(key);
    if (store) this.opened.delete(key);
    else {
      store = this.openShard(member.ref);
      while (this.opened.size >= this.maxOpen) {
        const [oldest, evicted] = this.opened.entries().next().value!;
        this.opened.delete(oldest);
        evicted.close();
      }
    }
    this.opened.set(key, store);
    return store;
  }
}
