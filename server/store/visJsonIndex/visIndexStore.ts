import type { ChildrenResponse, FindResponse, FoundNode, GraphMeta, NodeDetail, NodeSummary, Side } from '../../../src/core/api/types.js';
import { parsePyJson, PyJsonError } from '../../../src/core/formats/pyJson.js';
import { foldAscii, matchesFilter, type FilterQuery, type SearchQuery } from '../findQuery.js';
import { GraphFileError, pageRange, StaleFileError, type ChildrenQuery, type GraphStore } from '../graphStore.js';
import { detailFields, matchedNodeLink } from '../visJson/nodeRecord.js';
import { isObject, type RawNode } from '../visJson/visDocument.js';
import { visMeta } from '../visJson/visJsonStore.js';
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
const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

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
    const side = this.index.sides[q.side];
    if (!side) return undefined;
    const entry = q.nodeId === undefined ? side.rootIdx : lookupId(side, q.nodeId);
    if (entry < 0) return undefined;
    let list: ArrayLike<number> = side.children.subarray(side.childStart[entry], side.childStart[entry + 1]);
    // Micro steps tag only the root's children (msprobe-format.md §2.10); a child without one shows in every step.
    const micro = q.micro ?? -1;
    if (entry === side.rootIdx && micro !== -1) {
      list = Array.from(list).filter((c) => side.micro[c] === NO_MICRO || side.micro[c] === micro);
    }
    const [from, to] = pageRange(list.length, q.offset, q.limit);
    const page = Array.from({ length: to - from }, (_, k) => list[from + k]);
    return { node: idOf(side, entry), children: this.summaries(side, page), total: list.length };
  }

  node(q: { side: Side; nodeId: string }): NodeDetail | undefined {
    const side = this.index.sides[q.side];
    if (!side) return undefined;
    const entry = lookupId(side, q.nodeId);
    if (entry < 0) return undefined;
    const raw = this.readNode(side, entry);
    const path = this.ancestors(side, entry, raw);
    return {
      ...this.summaryFromColumns(side, entry, matchedNodeLink(raw.matched_node_link)),
      side: q.side,
      upnode: path.length > 0 ? path[path.length - 1] : null,
      path,
      ...detailFields(raw),
    };
  }

  search(q: SearchQuery): FindResponse {
    const side = this.index.sides[q.side];
    if (!side) return { total: 0, results: [] };
    const needle = encoder.encode(foldAscii(q.query));
    const { idBytes, idOffsets } = side;
    return this.find(side, q.limit, (e) => containsFolded(idBytes, idOffsets[e], idOffsets[e + 1], needle));
  }

  filter(q: FilterQuery): FindResponse {
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
  }

  close(): void {
    this.bytes.close();
  }

  private find(side: SideIndex, limit: number, test: (entry: number) => boolean): FindResponse {
    const hits: number[] = [];
    let total = 0;
    for (const e of side.preorder) {
      if (!test(e)) continue;
      total++;
      if (hits.length < limit) hits.push(e);
    }
    const summaries = this.summaries(side, hits);
    const results: FoundNode[] = summaries.map((s, k) => ({ ...s, path: this.ancestors(side, hits[k]) }));
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
  private summaries(side: SideIndex, entries: number[]): NodeSummary[] {
    const links: string[][] = entries.map(() => []);
    const wanted = entries
      .map((e, k) => ({ k, pos: side.start[e] + side.linkOff[e], len: side.linkLen[e] }))
      .filter((w) => w.len > 0 && side.linkCount[entries[w.k]] > 0)
      .sort((a, b) => a.pos - b.pos);
    for (let i = 0; i < wanted.length; ) {
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
        links[w.k] = matchedNodeLink(this.parse(chunk.subarray(w.pos - base, w.pos - base + w.len), w.pos));
      }
      i = j;
    }
    if (wanted.length > 0) this.bytes.assertFresh();
    return entries.map((e, k) => this.summaryFromColumns(side, e, links[k]));
  }

  private readNode(side: SideIndex, e: number): RawNode {
    const raw = this.parse(this.bytes.read(side.start[e], side.length[e]), side.start[e]);
    this.bytes.assertFresh();
    if (!isObject(raw)) throw new StaleFileError(this.o.file);
    return raw;
  }

  /** Parses bytes the index located; a failure means the file is no longer what was indexed. */
  private parse(bytes: Uint8Array, position: number): unknown {
    try {
      return parsePyJson(decoder.decode(bytes), { file: this.o.file });
    } catch (e) {
      this.bytes.assertFresh();
      if (e instanceof PyJsonError) throw new GraphFileError(this.o.file, `byte ${position}: ${e.problem}`);
      throw e;
    }
  }

  /**
   * Root → parent, as nodeRecord.ancestors: the subnodes tree where it reaches, else the node's `upnode` (legacy
   * files keep unreachable nodes, msprobe-format.md §8.1), stopping at a missing id or a cycle.
   */
  private ancestors(side: SideIndex, entry: number, raw?: RawNode): string[] {
    if (entry === side.rootIdx) return [];
    const out: string[] = [];
    const seen = new Set<number>([entry]);
    const upnodeOf = (e: number, r?: RawNode): number => {
      const up = (r ?? this.readNode(side, e)).upnode;
      return typeof up === 'string' ? lookupId(side, up) : -1;
    };
    let parent = side.parent[entry] >= 0 ? side.parent[entry] : upnodeOf(entry, raw);
    while (parent >= 0 && !seen.has(parent)) {
      seen.add(parent);
      out.push(idOf(side, parent));
      if (parent === side.rootIdx) break;
      parent = side.parent[parent] >= 0 ? side.parent[parent] : upnodeOf(parent);
    }
    return out.reverse();
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
