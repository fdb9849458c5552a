import type { ChildrenResponse, FindResponse, FoundNode, GraphMeta, NodeDetail, NodeSummary, Side, WorstResponse } from '../../../src/core/api/types.js';
import { parseJsonFast, parsePyJson, PyJsonError } from '../../../src/core/formats/pyJson.js';
import { foldAscii, matchesFilter, MAX_PATH_DEPTH, parseSearch, PATH_ROOM, searchMatcher, type FilterQuery, type SearchQuery } from '../findQuery.js';
import { GraphFileError, guardStore, pageRange, StaleFileError, type ChildrenQuery, type GraphStore, type NodeItems } from '../graphStore.js';
import { SummaryCache } from '../summaryCache.js';
import { checkBudget } from '../workBudget.js';
import { worstEnd, WorstFirst, type RatedNodes, type WorstQuery } from '../worstQuery.js';
import { detailFields, ioItems, matchedNodeLink } from '../visJson/nodeRecord.js';
import { isObject, type RawNode } from '../visJson/visDocument.js';
import { visMeta } from '../visJson/visJsonStore.js';
import { forestPath, groupDetail, groupSummary, unreachableForest, type UnreachableForest } from '../unreachableGroup.js';
import { bufferSource } from './byteSource.js';
import { readCappedJson } from './cappedJson.js';
import { readRecord } from './fastRecord.js';
import { JsonSyntaxError, type ByteSource } from './jsonCursor.js';
import type { NodeBytes } from './nodeBytes.js';
import { childCount, idOf, lookupId, NO_MICRO, type SideIndex, type VisIndex } from './visIndex.js';

/**
 * GraphStore over a `.vis` index: children, search and filter come from the index's columns; a node's full record
 * and the matched links shown in child lists are read from the file by byte range. Work per request is
 * O(children on the page) or, for search/filter, one pass over the compact columns.
 */

export interface VisIndexStoreOptions {
  /** Relative to the log dir; named in errors. */
  file: string;
  run: string;
  tag: string;
}

/** Link ranges closer than this are read in one go (one syscall instead of many). */
const COALESCE_GAP = 16 * 1024;
const COALESCE_SPAN = 1024 * 1024;
const encoder = new TextEncoder();

const utf8 = new TextDecoder('utf-8');

/** A short link list (far below every cap) through parseJsonFast; else null: the capped reader. */
function fastLink(bytes: Uint8Array): unknown {
  if (bytes.length > 4096) return null;
  try {
    return parseJsonFast(utf8.decode(bytes));
  } catch {
    return null;
  }
}

export class VisIndexStore implements GraphStore {
  private readonly metaValue: GraphMeta;

  constructor(
    private readonly index: VisIndex,
    private readonly bytes: NodeBytes,
    private readonly o: VisIndexStoreOptions,
  ) {
    const top: Record<string, unknown> = Object.create(null);
    for (const [key, text] of Object.entries(index.metaText)) {
      try {
        top[key] = parsePyJson(text, { file: o.file });
      } catch {
        // validated while indexing; a damaged cache only loses the key
      }
    }
    const roots: GraphMeta['roots'] = {};
    const nodeCounts: GraphMeta['nodeCounts'] = {};
    for (const name of ['npu', 'bench'] as const) {
      const side = index.sides[name];
      if (!side) continue;
      roots[name] = idOf(side, side.rootIdx);
      nodeCounts[name] = side.nodeCount;
    }
    this.metaValue = visMeta(top, index.graphType, roots, nodeCounts, o);
  }

  meta(): GraphMeta {
    return this.metaValue;
  }

  children(q: ChildrenQuery): ChildrenResponse | undefined {
    return guardStore(this.o.file, () => this.childrenOf(q));
  }

  node(q: { side: Side; nodeId: string }): NodeDetail | undefined {
    return guardStore(this.o.file, () => this.detail(q));
  }

  summaries(q: { side: Side; ids: readonly string[] }): Array<NodeSummary | undefined> {
    return guardStore(this.o.file, () => {
      const side = this.index.sides[q.side];
      const out: Array<NodeSummary | undefined> = new Array(q.ids.length).fill(undefined);
      if (!side) return out;
      const missing: string[] = [];
      const missingAt: number[] = [];
      for (let k = 0; k < q.ids.length; k++) {
        out[k] = this.kept.get(side, q.ids[k]);
        if (!out[k]) {
          missing.push(q.ids[k]);
          missingAt.push(k);
        }
      }
      const { entries, at } = this.entriesOf({ side: q.side, ids: missing });
      this.summariesOf(side, entries).forEach((s, k) => (out[missingAt[at[k]]] = s));
      return out;
    });
  }

  items(q: { side: Side; ids: readonly string[] }): Array<NodeItems | undefined> {
    return guardStore(this.o.file, () => {
      const { side, entries, at } = this.entriesOf(q);
      const out: Array<NodeItems | undefined> = new Array(q.ids.length).fill(undefined);
      if (!side) return out;
      // Records in file order, read in runs as the summaries' links are; a record too big for one read is read capped.
      const order = entries.map((_, k) => k).sort((a, b) => side.start[entries[a]] - side.start[entries[b]]);
      for (let i = 0; i < order.length; ) {
        checkBudget();
        const e0 = entries[order[i]];
        if (side.length[e0] > COALESCE_SPAN) {
          const raw = this.readNode(side, e0);
          out[at[order[i++]]] = { inputData: ioItems(raw.input_data), outputData: ioItems(raw.output_data) };
          continue;
        }
        let j = i + 1;
        let end = side.start[e0] + side.length[e0];
        while (j < order.length) {
          const e = entries[order[j]];
          if (side.start[e] - end >= COALESCE_GAP || side.start[e] + side.length[e] - side.start[e0] >= COALESCE_SPAN) break;
          end = Math.max(end, side.start[e] + side.length[e]);
          j++;
        }
        const base = side.start[e0];
        const chunk = this.bytes.read(base, end - base);
        for (let k = i; k < j; k++) {
          const e = entries[order[k]];
          const bytes = chunk.subarray(side.start[e] - base, side.start[e] - base + side.length[e]);
          try {
            const raw = readRecord(bytes);
            out[at[order[k]]] = { inputData: ioItems(raw.input_data), outputData: ioItems(raw.output_data) };
          } catch (err) {
            this.bytes.assertFresh();
            const at0 = side.start[e];
            if (err instanceof JsonSyntaxError) throw new GraphFileError(this.o.file, `byte ${at0 + err.offset}: ${err.problem}`);
            if (err instanceof PyJsonError) throw new GraphFileError(this.o.file, `byte ${at0}: ${err.problem}`);
            throw err;
          }
        }
        i = j;
      }
      this.bytes.assertFresh();
      return out;
    });
  }

  /** The index entries of `ids` on the side, with each one's position in `ids` (ids not on the side left out). */
  private entriesOf(q: { side: Side; ids: readonly string[] }): { side: SideIndex | undefined; entries: number[]; at: number[] } {
    const side = this.index.sides[q.side];
    const entries: number[] = [];
    const at: number[] = [];
    if (side) {
      for (let k = 0; k < q.ids.length; k++) {
        const e = lookupId(side, q.ids[k]);
        if (e >= 0) {
          entries.push(e);
          at.push(k);
        }
      }
    }
    return { side, entries, at };
  }

  search(q: SearchQuery): FindResponse {
    return guardStore(this.o.file, () => {
      const side = this.index.sides[q.side];
      if (!side) return { total: 0, results: [] };
      const pattern = parseSearch(q.query);
      if (pattern.kind === 'regex') {
        const matches = searchMatcher(q.query);
        return this.find(side, q.limit, (e) => matches(idOf(side, e)));
      }
      const needle = encoder.encode(foldAscii(pattern.text));
      const { idBytes, idOffsets } = side;
      return this.find(side, q.limit, (e) => containsFolded(idBytes, idOffsets[e], idOffsets[e + 1], needle));
    });
  }

  filter(q: FilterQuery): FindResponse {
    return guardStore(this.o.file, () => {
      const side = this.index.sides[q.side];
      if (!side) return { total: 0, results: [] };
      return this.find(
        side,
        q.limit,
        (e) =>
          (!q.leaves || childCount(side, e) === 0) &&
          matchesFilter(q, {
            precisionIndex: Number.isFinite(side.precision[e]) ? side.precision[e] : null,
            matchedNodeLink: side.linkCount[e],
            overflowLevel: side.overflow[e] === 0 ? null : side.overflowNames[side.overflow[e] - 1],
          }),
      );
    });
  }

  worst(q: WorstQuery): WorstResponse {
    return guardStore(this.o.file, () => {
      const worst = worstEnd(this.metaValue.task);
      const side = this.index.sides[q.side];
      const answer: WorstResponse = { total: 0, offset: q.offset, order: q.order, worst, results: [] };
      if (!side) return answer;
      const rated = this.ratedEntries(q.side, side, worst);
      const [from, to] = pageRange(rated.entries.length, q.offset, q.limit);
      const positions = q.order === 'precision' ? rated.byWorst.range(from, to) : null;
      const page: number[] = [];
      for (let k = from; k < to; k++) page.push(rated.entries[positions ? positions[k - from] : k]);
      const summaries = this.summariesOf(side, page);
      const memo = new Map<number, string[]>();
      answer.total = rated.entries.length;
      answer.results = summaries.map((summary, k) => ({ ...summary, path: this.ancestors(side, page[k], memo) }));
      return answer;
    });
  }

  rated(q: { side: Side }): RatedNodes {
    return guardStore(this.o.file, () => {
      const side = this.index.sides[q.side];
      if (!side) return { values: new Float64Array(0), idAt: () => '' };
      const { entries, values } = this.ratedEntries(q.side, side, worstEnd(this.metaValue.task));
      return { values, idAt: (k) => idOf(side, entries[k]) };
    });
  }

  close(): void {
    this.bytes.close();
  }

  /** Per side, once: the index's rated entries (output order) with their values, and those positions worst first. */
  private readonly ratedCache = new Map<Side, { entries: Int32Array; values: Float64Array; byWorst: WorstFirst }>();

  private ratedEntries(name: Side, side: SideIndex, worst: 'high' | 'low'): { entries: Int32Array; values: Float64Array; byWorst: WorstFirst } {
    const known = this.ratedCache.get(name);
    if (known) return known;
    // The values are gathered, not stored: a few ms for 10^6 entries, less than reading them from the cache file.
    const values = new Float64Array(side.rated.length);
    for (let k = 0; k < values.length; k++) values[k] = side.precision[side.rated[k]];
    const rated = { entries: side.rated, values, byWorst: new WorstFirst(values, worst) };
    this.ratedCache.set(name, rated);
    return rated;
  }

  private childrenOf(q: ChildrenQuery): ChildrenResponse | undefined {
    const side = this.index.sides[q.side];
    if (!side) return undefined;
    const forest = this.forestOf(side);
    if (forest && q.nodeId === forest.id) {
      const [from, to] = pageRange(forest.tops.length, q.offset, q.limit);
      return { node: forest.id, children: this.summariesOf(side, forest.tops.slice(from, to)), total: forest.tops.length };
    }
    const entry = q.nodeId === undefined ? side.rootIdx : lookupId(side, q.nodeId);
    if (entry < 0) return undefined;
    let list: ArrayLike<number> = side.children.subarray(side.childStart[entry], side.childStart[entry + 1]);
    // Micro steps tag only the root's children (msprobe-format.md §2.10); a child without one shows in every step.
    const micro = q.micro ?? -1;
    if (entry === side.rootIdx && micro !== -1) {
      list = Array.from(list).filter((c) => side.micro[c] === NO_MICRO || side.micro[c] === micro);
    }
    // The unreachable group is the root's last child, whatever the micro step (its nodes carry none that counts).
    const group = entry === side.rootIdx && forest ? 1 : 0;
    const [from, to] = pageRange(list.length + group, q.offset, q.limit);
    const page = Array.from({ length: Math.max(0, Math.min(to, list.length) - from) }, (_, k) => list[from + k]);
    const children = this.summariesOf(side, page);
    if (group && from <= list.length && list.length < to) children.push(groupSummary(forest!.id, forest!.tops.length));
    return { node: idOf(side, entry), children, total: list.length + group };
  }

  private detail(q: { side: Side; nodeId: string }): NodeDetail | undefined {
    const side = this.index.sides[q.side];
    if (!side) return undefined;
    const forest = this.forestOf(side);
    if (forest && q.nodeId === forest.id) return groupDetail(forest.id, forest.tops.length, q.side, idOf(side, side.rootIdx));
    const entry = lookupId(side, q.nodeId);
    if (entry < 0) return undefined;
    const raw = this.readNode(side, entry);
    const path = this.ancestors(side, entry);
    return {
      ...this.summaryFromColumns(side, entry, matchedNodeLink(raw.matched_node_link)),
      side: q.side,
      upnode: path.length > 0 ? path[path.length - 1] : null,
      path,
      ...detailFields(raw),
    };
  }

  private find(side: SideIndex, limit: number, test: (entry: number) => boolean): FindResponse {
    const hits: number[] = [];
    let total = 0;
    for (const e of side.preorder) {
      checkBudget();
      if (!test(e)) continue;
      total++;
      if (hits.length < limit) hits.push(e);
    }
    const summaries = this.summariesOf(side, hits);
    const results: FoundNode[] = [];
    // Siblings share their parent's path (one array per parent); the answer stops once its paths fill PATH_ROOM.
    const memo = new Map<number, string[]>();
    let room = PATH_ROOM;
    for (let k = 0; k < hits.length; k++) {
      const path = this.ancestors(side, hits[k], memo);
      room -= path.length + 1;
      if (room < 0 && results.length > 0) break;
      results.push({ ...summaries[k], path });
    }
    return { total, results };
  }

  private summaryFromColumns(side: SideIndex, e: number, link: string[]): NodeSummary {
    const micro = side.micro[e];
    const precision = side.precision[e];
    return {
      id: idOf(side, e),
      nodeType: side.nodeType[e],
      precisionIndex: Number.isFinite(precision) ? precision : null,
      overflowLevel: side.overflow[e] === 0 ? null : side.overflowNames[side.overflow[e] - 1],
      matchedNodeLink: link,
      childCount: childCount(side, e),
      microStepId: micro === NO_MICRO ? null : micro,
    };
  }

  /** Summaries of `entries`, reading their matched links from the file in as few reads as gaps allow. */
  private summariesOf(side: SideIndex, entries: number[]): NodeSummary[] {
    const links: string[][] = entries.map(() => []);
    const wanted = entries
      .map((e, k) => ({ k, pos: side.start[e] + side.linkOff[e], len: side.linkLen[e] }))
      .filter((w) => w.len > 0 && side.linkCount[entries[w.k]] > 0)
      .sort((a, b) => a.pos - b.pos);
    for (let i = 0; i < wanted.length; ) {
      checkBudget();
      const w0 = wanted[i];
      if (w0.len > COALESCE_SPAN) {
        // A huge link list is streamed like a record, never read whole.
        links[w0.k] = matchedNodeLink(this.parse(this.bytes.source(w0.pos, w0.len), w0.pos));
        i++;
        continue;
      }
      let j = i + 1;
      let end = wanted[i].pos + wanted[i].len;
      while (j < wanted.length && wanted[j].pos - end < COALESCE_GAP && wanted[j].pos + wanted[j].len - wanted[i].pos < COALESCE_SPAN) {
        end = Math.max(end, wanted[j].pos + wanted[j].len);
        j++;
      }
      const base = wanted[i].pos;
      const chunk = this.bytes.read(base, end - base);
      for (let k = i; k < j; k++) {
        const w = wanted[k];
        const bytes = chunk.subarray(w.pos - base, w.pos - base + w.len);
        links[w.k] = matchedNodeLink(fastLink(bytes) ?? this.parse(bufferSource(bytes), w.pos));
      }
      i = j;
    }
    if (wanted.length > 0) this.bytes.assertFresh();
    return entries.map((e, k) => {
      const summary = this.summaryFromColumns(side, e, links[k]);
      this.kept.put(side, summary.id, summary);
      return summary;
    });
  }

  /** Summaries answered so far, by id (summaryCache.ts). */
  private readonly kept = new SummaryCache<SideIndex, string>();

  private readNode(side: SideIndex, e: number): RawNode {
    const raw = this.parse(this.bytes.source(side.start[e], side.length[e]), side.start[e]);
    this.bytes.assertFresh();
    if (!isObject(raw)) throw new StaleFileError(this.o.file);
    return raw;
  }

  /**
   * Parses bytes the index located, with readCappedJson's caps (a record of any size is answered in bounded memory);
   * a syntax error means the file is no longer what was indexed.
   */
  private parse(src: ByteSource, position: number): unknown {
    try {
      return readCappedJson(src);
    } catch (e) {
      this.bytes.assertFresh();
      if (e instanceof JsonSyntaxError) throw new GraphFileError(this.o.file, `byte ${position + e.offset}: ${e.problem}`);
      if (e instanceof PyJsonError) throw new GraphFileError(this.o.file, `byte ${position}: ${e.problem}`);
      throw e;
    }
  }

  /** Per side, once: the nodes the root does not reach, under their synthetic group (unreachableGroup.ts). */
  private readonly forests = new Map<SideIndex, UnreachableForest | null>();

  private forestOf(side: SideIndex): UnreachableForest | null {
    let forest = this.forests.get(side);
    if (forest === undefined) {
      forest = unreachableForest({
        size: side.alive.length,
        isLive: (e) => side.alive[e] === 1,
        isReachable: (e) => e === side.rootIdx || side.parent[e] >= 0,
        childrenOf: (e) => side.children.subarray(side.childStart[e], side.childStart[e + 1]),
        hasId: (id) => lookupId(side, id) >= 0,
      });
      this.forests.set(side, forest);
    }
    return forest;
  }

  /**
   * Root → parent from the index alone, as nodeRecord.ancestors: the subnodes tree from the root, or for a node it
   * does not reach, the unreachable group's tree; at most MAX_PATH_DEPTH ids. `memo` maps a parent to the path of
   * its children.
   */
  private ancestors(side: SideIndex, entry: number, memo?: Map<number, string[]>): string[] {
    if (entry === side.rootIdx) return [];
    const first = side.parent[entry];
    if (first < 0) {
      const forest = this.forestOf(side);
      return forest ? forestPath(forest, entry, idOf(side, side.rootIdx), (e) => idOf(side, e)) : [];
    }
    const known = memo?.get(first);
    if (known) return known;
    const chain: number[] = [];
    const seen = new Set<number>([entry]);
    let base: string[] = [];
    let reachedRoot = false;
    for (let p = first; p >= 0 && !seen.has(p) && chain.length < MAX_PATH_DEPTH; p = side.parent[p]) {
      checkBudget();
      const through = p !== first ? memo?.get(p) : undefined;
      if (through) {
        base = through;
        reachedRoot = true;
        break;
      }
      seen.add(p);
      chain.push(p);
      if (p === side.rootIdx) {
        reachedRoot = true;
        break;
      }
    }
    const path = base.slice();
    for (let k = chain.length - 1; k >= 0; k--) path.push(idOf(side, chain[k]));
    if (reachedRoot) memo?.set(first, path);
    return path;
  }
}

/** Whether bytes[s..e), ASCII-lower-cased, contain `needle` (already folded). */
function containsFolded(bytes: Uint8Array, s: number, e: number, needle: Uint8Array): boolean {
  const n = needle.length;
  if (n === 0) return true;
  const first = needle[0];
  for (let i = s; i + n <= e; i++) {
    let b = bytes[i];
    if (b >= 0x41 && b <= 0x5a) b |= 0x20;
    if (b !== first) continue;
    let k = 1;
    for (; k < n; k++) {
      let c = bytes[i + k];
      if (c >= 0x41 && c <= 0x5a) c |= 0x20;
      if (c !== needle[k]) break;
    }
    if (k === n) return true;
  }
  return false;
}
