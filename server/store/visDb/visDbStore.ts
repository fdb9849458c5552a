import type Database from 'better-sqlite3';
import { statSync, type Stats } from 'node:fs';
import type { ChildrenResponse, FindResponse, GraphMeta, NodeDetail, NodeSummary, Side, Task, WorstResponse } from '../../../src/core/api/types.js';
import { parsePyJson } from '../../../src/core/formats/pyJson.js';
import { MAX_BUILT_DEPTH } from '../visJsonIndex/cappedJson.js';
import { filterIsOpen, parseSearch, type FilterQuery, type GraphSelector, type SearchQuery } from '../findQuery.js';
import { GraphFileError, pageRange, UnknownGraphError, type ChildrenQuery, type GraphStore, type NodeItems } from '../graphStore.js';
import { toInt } from '../visJson/nodeRecord.js';
import { colorBuckets, toolTips } from '../visJson/visJsonStore.js';
import { SummaryCache } from '../summaryCache.js';
import { checkBudget, WorkBudgetExceeded } from '../workBudget.js';
import { detailColumns, DamagedRowError, foundRow, nameText, rowDetail, rowItems, rowSummary, summaryColumns, type DetailRow, type SummaryRow } from './dbRows.js';
import { readSchema, type DbSchema } from './dbSchema.js';
import { asFileError, closeVisDb, openVisDb, type OpenedDb } from './openDb.js';
import { comparePreorder, MAX_DEPTH, pathOf, type Link, type Links } from './ancestorLinks.js';
import { buildPreorderRanks, type PreorderRanks } from './preorderRanks.js';
import { worstEnd, type RatedNodes, type WorstQuery } from '../worstQuery.js';
import { RatedScan, type DbDerived } from './ratedScan.js';
import { derivedWriteProblem, readDerived, writeDerived } from '../derivedCache.js';
import { readShardTable, type ShardMeta } from '../../graph/shardMeta.js';

/**
 * GraphStore over a `.vis.db` (msprobe-format.md §4.2): every step and rank, graphs selected per request, queries on
 * msprobe's own indexes (children: index1 `up_node = ? ORDER BY node_order`; by name: index2). Nothing is loaded
 * whole except, on a search or filter with many matches, the graph's pre-order ranks (about 12 bytes a node).
 */

export interface VisDbStoreOptions {
  file: string;
  run: string;
  tag: string;
  /** Up to this many matches are ordered by their paths, more by the graph's pre-order ranks (default 2000). */
  pathSortMax?: number;
  /** Our cache directory: worst-table lists (RatedScan) and graph facts are kept there; null/absent = not kept. */
  cacheDir?: string | null;
  cacheMaxBytes?: number;
  /** A cache that cannot be written (once per problem). */
  log?: (line: string) => void;
}

const PATH_SORT_MAX = 2000;
/** Path-sorting costs about depth per comparison: above this many ancestors in all, the pre-order ranks are cheaper. */
const PATH_SORT_MAX_DEPTHS = 100_000;
/** Characters of ids and paths in one search/filter answer: past it the answer holds fewer than `limit` results. */
const MAX_FIND_ANSWER_CHARS = 3_000_000;
/** More precision buckets than this are matched through one JSON parameter (SQLite caps expression depth). */
const INLINE_BUCKETS = 64;

/** derivedCache kind of a graph's roots and node counts. */
const GRAPH_KIND = 'db-graph-v1';

const TASKS: readonly Task[] = ['summary', 'md5', 'all', 'structure'];
const SOURCES: Record<Side, string> = { npu: 'NPU', bench: 'Bench' };
/** Ids per `IN (json_each)` query of a batch lookup: one statement run per few thousand ids. */
const BY_NAME = 4096;

interface Config {
  graphType: GraphMeta['graphType'];
  task: Task;
  microSteps: number;
  overflowCheck: boolean;
  colors: GraphMeta['colors'];
  toolTips: GraphMeta['toolTips'];
  steps: number[];
  ranks: number[];
  graphs: Array<[step: number, rank: number]>;
}

export class VisDbStore implements GraphStore {
  private readonly opened: OpenedDb;
  private readonly db: Database.Database;
  private readonly schema: DbSchema;
  private readonly config: Config;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly metas = new Map<string, GraphMeta>();
  private readonly ranks = new Map<string, PreorderRanks>();
  /** The worst table's rated rows per graph and side, in execution order and worst first (24 bytes a row). */
  private readonly ratedScans = new Map<string, RatedScan>();
  private readonly persist: DbDerived | null;

  constructor(absPath: string, private readonly o: VisDbStoreOptions) {
    // Stamped before opening: a file replaced in between is stamped older than what was read, so what is derived
    // from it is never taken for the new file's.
    const st = o.cacheDir ? statOrNull(absPath) : null;
    this.opened = openVisDb(absPath, o.file);
    this.db = this.opened.db;
    // With a live WAL the rows are the database and its log (a writer at work): the file's stamp does not cover them.
    this.persist =
      o.cacheDir && st && this.opened.mode !== 'wal-copy'
        ? { cacheDir: o.cacheDir, maxBytes: o.cacheMaxBytes, absPath, stamp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino }, log: o.log ?? (() => {}) }
        : null;
    try {
      this.schema = readSchema(this.db, o.file);
      this.config = this.readConfig();
    } catch (e) {
      closeVisDb(this.opened);
      throw asFileError(o.file, e);
    }
  }

  meta(q: GraphSelector = {}): GraphMeta {
    return this.guard(() => {
      const { step, rank } = this.graph(q);
      const key = `${step}/${rank}`;
      let meta = this.metas.get(key);
      if (meta) return meta;
      meta = { run: this.o.run, tag: this.o.tag, format: 'db', ...this.config, ...this.graphFacts(step, rank) };
      this.metas.set(key, meta);
      return meta;
    });
  }

  /**
   * The graph's roots and node counts: two count(*) over index3 (~0.3 s for 10^6 rows a side), kept in the cache
   * directory so that a restarted server's meta, and the first divergent node that needs it, answer at once.
   */
  private graphFacts(step: number, rank: number): Pick<GraphMeta, 'roots' | 'nodeCounts'> {
    const p = this.persist;
    const key = `${step}/${rank}`;
    const hit = p ? readDerived(p.cacheDir, GRAPH_KIND, p.absPath, key, p.stamp) : null;
    if (hit && this.isGraphFacts(hit.header)) return hit.header;
    const roots: GraphMeta['roots'] = {};
    const nodeCounts: GraphMeta['nodeCounts'] = {};
    for (const side of this.sides()) {
      const root = this.rootOf(side, step, rank);
      if (root !== undefined) roots[side] = root;
      nodeCounts[side] = (this.stmt('SELECT count(*) AS c FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?')
        .get(step, rank, SOURCES[side]) as { c: number }).c;
    }
    if (p) {
      try {
        writeDerived(p.cacheDir, GRAPH_KIND, p.absPath, key, p.stamp, { roots, nodeCounts }, [], p.maxBytes);
      } catch (e) {
        p.log(derivedWriteProblem(p.cacheDir, e));
      }
    }
    return { roots, nodeCounts };
  }

  private isGraphFacts(h: Record<string, unknown>): h is Pick<GraphMeta, 'roots' | 'nodeCounts'> {
    const { roots, nodeCounts } = h as { roots?: Record<string, unknown>; nodeCounts?: Record<string, unknown> };
    if (typeof roots !== 'object' || roots === null || typeof nodeCounts !== 'object' || nodeCounts === null) return false;
    const sides: string[] = this.sides();
    return (
      Object.keys(nodeCounts).every((k) => sides.includes(k)) &&
      sides.every((s) => Number.isSafeInteger(nodeCounts[s]) && (nodeCounts[s] as number) >= 0) &&
      Object.entries(roots).every(([k, v]) => sides.includes(k) && typeof v === 'string')
    );
  }

  children(q: ChildrenQuery): ChildrenResponse | undefined {
    return this.guard(() => {
      if (!this.sides().includes(q.side)) return undefined;
      const { step, rank } = this.graph(q);
      const source = SOURCES[q.side];
      const root = this.rootOf(q.side, step, rank);
      const node = q.nodeId ?? root;
      if (node === undefined || !this.exists(source, step, rank, node)) return undefined;
      const micro = q.micro ?? -1;
      const microCol = this.schema.node('micro_step_id');
      // Micro steps filter the root's children only (msprobe-format.md §2.10), as in the `.vis` stores.
      const byMicro = node === root && micro !== -1;
      const where = `n.step = ? AND n.rank = ? AND n.data_source = ? AND n.up_node = ?${
        byMicro ? ` AND (${microCol} IS NULL OR ${microCol} = ?)` : ''
      }`;
      const params: unknown[] = [step, rank, source, node, ...(byMicro ? [micro] : [])];
      const total = (this.stmt(`SELECT count(*) AS c FROM tb_nodes n WHERE ${where}`).get(...params) as { c: number }).c;
      const offset = Math.max(0, q.offset ?? 0);
      const limit = q.limit === undefined ? -1 : Math.max(0, q.limit);
      const rows = this.stmt(
        `SELECT ${summaryColumns(this.schema)} FROM tb_nodes n WHERE ${where} ORDER BY n.node_order LIMIT ? OFFSET ?`,
      ).all(...params, limit, offset) as SummaryRow[];
      const kept = `${step}:${rank}:${source}`;
      const children = rows.map((r) => {
        const summary = rowSummary(r);
        this.kept.put(kept, summary.id, summary);
        return summary;
      });
      return { node, children, total };
    });
  }

  node(q: { side: Side; nodeId: string } & GraphSelector): NodeDetail | undefined {
    return this.guard(() => {
      if (!this.sides().includes(q.side)) return undefined;
      const { step, rank } = this.graph(q);
      const row = this.stmt(
        `SELECT ${detailColumns(this.schema)} FROM ${this.schema.stackJoin}
         WHERE n.step = ? AND n.rank = ? AND n.data_source = ? AND n.node_name = ? LIMIT 1`,
      ).get(step, rank, SOURCES[q.side], q.nodeId) as DetailRow | undefined;
      if (!row) return undefined;
      const link = this.link(SOURCES[q.side], step, rank, q.nodeId, new Map());
      return rowDetail(row, q.side, link ? pathOf(link) : []);
    });
  }

  summaries(q: { side: Side; ids: readonly string[] } & GraphSelector): Array<NodeSummary | undefined> {
    const kept = this.guard(() => {
      const { step, rank } = this.graph(q);
      return `${step}:${rank}:${SOURCES[q.side]}`;
    });
    const out = q.ids.map((id) => this.kept.get(kept, id));
    const missing = q.ids.filter((_, k) => !out[k]);
    if (missing.length === 0) return out;
    const found = this.byNames({ ...q, ids: missing }, summaryColumns(this.schema), (r) => rowSummary(r as unknown as SummaryRow));
    for (const s of found.values()) this.kept.put(kept, s.id, s);
    return q.ids.map((id, k) => out[k] ?? found.get(id));
  }

  /** Summaries answered so far, per graph and side, by id (summaryCache.ts). */
  private readonly kept = new SummaryCache<string, string>();

  items(q: { side: Side; ids: readonly string[] } & GraphSelector): Array<NodeItems | undefined> {
    const columns = `n.node_name AS node_name, ${this.schema.node('input_data')} AS input_data, ${this.schema.node('output_data')} AS output_data`;
    const found = this.byNames(q, columns, (r) => ({ inputData: rowItems(r.input_data), outputData: rowItems(r.output_data) }));
    return q.ids.map((id) => found.get(id));
  }

  /** Rows of `ids` on the side (first row of a repeated name, as node() reads), by name: batches of BY_NAME ids. */
  private byNames<T>(q: { side: Side; ids: readonly string[] } & GraphSelector, columns: string, make: (r: Record<string, unknown>) => T): Map<string, T> {
    return this.guard(() => {
      const out = new Map<string, T>();
      if (!this.sides().includes(q.side)) return out;
      const { step, rank } = this.graph(q);
      const stmt = this.stmt(
        `SELECT ${columns} FROM tb_nodes n WHERE n.step = ? AND n.rank = ? AND n.data_source = ?
         AND n.node_name IN (SELECT value FROM json_each(?))`,
      );
      for (let i = 0; i < q.ids.length; i += BY_NAME) {
        checkBudget();
        const rows = stmt.all(step, rank, SOURCES[q.side], JSON.stringify(q.ids.slice(i, i + BY_NAME))) as Array<Record<string, unknown>>;
        for (const r of rows) if (typeof r.node_name === 'string' && !out.has(r.node_name)) out.set(r.node_name, make(r));
      }
      return out;
    });
  }

  search(q: SearchQuery): FindResponse {
    const parsed = parseSearch(q.query);
    if (parsed.kind === 'regex') {
      this.registerRegexp();
      return this.find(q, 'pb_regexp(?, ?, n.node_name)', [parsed.source, parsed.flags]);
    }
    const pattern = `%${parsed.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // LIKE folds ASCII case only, the rule findQuery.foldAscii gives the `.vis` stores.
    return this.find(q, "n.node_name LIKE ? ESCAPE '\\'", [pattern]);
  }

  filter(q: FilterQuery): FindResponse {
    const parts: string[] = [];
    const params: unknown[] = [];
    const precision = this.schema.node('precision_index');
    const buckets = [...new Map(q.precision.map(([lo, hi]) => [`${lo}:${hi}`, [lo, hi] as const])).values()];
    if (buckets.length > INLINE_BUCKETS) {
      // Any number of buckets, in one parameter: an OR per bucket would pass SQLite's expression-depth limit.
      parts.push(`EXISTS (SELECT 1 FROM json_each(?) b WHERE CASE WHEN json_extract(b.value, '$[0]') = json_extract(b.value, '$[1]')
        THEN ${precision} = json_extract(b.value, '$[0]')
        ELSE ${precision} >= json_extract(b.value, '$[0]') AND (${precision} < json_extract(b.value, '$[1]')
          OR (json_extract(b.value, '$[1]') = 1 AND ${precision} = 1)) END)`);
      params.push(JSON.stringify(buckets));
    }
    for (const [lo, hi] of buckets.length > INLINE_BUCKETS ? [] : buckets) {
      if (lo === hi) {
        parts.push(`${precision} = ?`);
        params.push(lo);
      } else {
        parts.push(`(${precision} >= ? AND (${precision} < ? OR (? = 1 AND ${precision} = 1)))`);
        params.push(lo, hi, hi);
      }
    }
    if (q.unmatched) {
      const seek = q.precision.length === 0 && q.overflow.length === 0 ? this.unmatchedSeek(q) : null;
      if (seek) {
        parts.push(seek.sql);
        params.push(...seek.params);
      } else {
        const link = this.schema.node('matched_node_link');
        parts.push(`(${link} IS NULL OR ${link} IN ('', '[]'))`);
      }
    }
    if (q.overflow.length > 0) {
      parts.push(`${this.schema.node('overflow_level')} IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(q.overflow));
    }
    let where = filterIsOpen(q) ? '1' : `(${parts.join(' OR ')})`;
    if (q.leaves) {
      const sub = this.schema.node('sub_nodes');
      where += ` AND (${sub} IS NULL OR ${sub} IN ('', '[]'))`;
    }
    return this.find(q, where, params);
  }

  /**
   * The unmatched rows of a graph through msprobe's index6 instead of every row's link (3.8 GB for 10^6 nodes a side,
   * 2.4 s, more than a request's budget; ~0.8 s this way): seeks to modified 0/1 with an empty link. Only when the
   * graph holds no other `modified` value (a seek, kept per graph), else null: the plain condition.
   */
  private unmatchedSeek(q: GraphSelector): { sql: string; params: unknown[] } | null {
    const index = this.schema.linkIndex;
    if (!index) return null;
    const { step, rank } = this.graph(q);
    const key = `${step}:${rank}`;
    let ok = this.seekable.get(key);
    if (ok === undefined) {
      // One range seek each (an OR of them would scan the graph's whole index range).
      const probe = (cond: string) => `EXISTS (SELECT 1 FROM tb_nodes INDEXED BY ${index} WHERE step = ? AND rank = ? AND ${cond})`;
      const odd = this.stmt(
        `SELECT ${['modified IS NULL', 'modified < 0', '(modified > 0 AND modified < 1)', 'modified > 1'].map(probe).join(' OR ')} AS odd`,
      ).get(step, rank, step, rank, step, rank, step, rank) as { odd: number };
      this.seekable.set(key, (ok = odd.odd === 0));
    }
    if (!ok) return null;
    const sub = (cond: string) => `SELECT rowid FROM tb_nodes INDEXED BY ${index} WHERE step = ? AND rank = ? AND modified IN (0, 1) AND ${cond}`;
    return {
      sql: `n.rowid IN (${sub("matched_node_link IN ('', '[]')")} UNION ALL ${sub('matched_node_link IS NULL')})`,
      params: [step, rank, step, rank],
    };
  }

  private readonly seekable = new Map<string, boolean>();

  /**
   * The worst-nodes table: the graph's rated rows in node_order, the post-order the `.vis` stores compute, read once
   * (RatedScan, 202 while under way), or those worst first. Only the page's rows are then read and walked to the root.
   */
  worst(q: WorstQuery): WorstResponse {
    return this.guard(() => {
      const worst = worstEnd(this.config.task);
      const answer: WorstResponse = { total: 0, offset: q.offset, order: q.order, worst, results: [] };
      if (!this.sides().includes(q.side)) return answer;
      const { step, rank } = this.graph(q);
      const source = SOURCES[q.side];
      // One scan per graph and side, kept: the count is its length and every page a slice of it.
      const scan = this.ratedScan(step, rank, source);
      const execution = scan.list().rowids;
      const [from, to] = pageRange(execution.length, q.offset, q.limit);
      answer.total = execution.length;
      const rowids = q.order === 'execution' ? execution.subarray(from, to) : scan.worstRange(worst, from, to);
      const byRowid = this.stmt(`SELECT ${summaryColumns(this.schema)} FROM tb_nodes n WHERE n.rowid = ?`);
      const links: Links = new Map();
      for (const r of rowids) {
        const summary = rowSummary(foundRow(byRowid.get(r) as SummaryRow | undefined, r));
        const link = this.link(source, step, rank, summary.id, links);
        if (!link) throw new DamagedRowError(`tb_nodes row ${r} cannot be found by its node_name`);
        answer.results.push({ ...summary, path: pathOf(link) });
      }
      return answer;
    });
  }

  private regexpRegistered = false;

  /** `/regex/` search in SQL: the JavaScript engine the `.vis` stores use, so both formats find the same nodes. */
  private registerRegexp(): void {
    if (this.regexpRegistered) return;
    this.regexpRegistered = true;
    let compiled: { key: string; re: RegExp } | null = null;
    let calls = 0;
    this.db.function('pb_regexp', { deterministic: true }, (source: unknown, flags: unknown, name: unknown) => {
      if ((++calls & 0x3ff) === 0) checkBudget();
      if (typeof source !== 'string' || typeof flags !== 'string' || typeof name !== 'string') return 0;
      const key = `${flags}/${source}`;
      if (compiled?.key !== key) compiled = { key, re: new RegExp(source, flags) };
      return compiled.re.test(name) ? 1 : 0;
    });
  }

  rated(q: { side: Side } & GraphSelector): RatedNodes {
    return this.guard(() => {
      if (!this.sides().includes(q.side)) return { values: new Float64Array(0), idAt: () => '' };
      const { step, rank } = this.graph(q);
      const { rowids, values } = this.ratedScan(step, rank, SOURCES[q.side]).list();
      const nameOf = this.stmt('SELECT node_name FROM tb_nodes WHERE rowid = ?').pluck();
      return {
        values,
        idAt: (k) => this.guard(() => nameText(nameOf.get(rowids[k]), 'node_name', rowids[k])),
      };
    });
  }

  /** The graph's rated rows (RatedScan), read across requests and kept. */
  private ratedScan(step: number, rank: number, source: string): RatedScan {
    const key = `${step}/${rank}/${source}`;
    let scan = this.ratedScans.get(key);
    if (!scan) {
      const p = this.schema.node('precision_index');
      const graph = 'n.step = ? AND n.rank = ? AND n.data_source = ?';
      // index3 (step, rank, data_source, node_order) orders the rows; rowid breaks ties in damaged files.
      const slice = (after: string) =>
        this.db.prepare(`SELECT n.rowid, n.node_order, ${p} FROM tb_nodes n WHERE ${graph}${after} ORDER BY n.node_order, n.rowid LIMIT ?`);
      scan = new RatedScan(
        this.o.file,
        this.db.prepare(`SELECT count(*) FROM tb_nodes n WHERE ${graph}`),
        slice(''),
        slice(' AND (n.node_order, n.rowid) > (?, ?)'),
        [step, rank, source],
        this.persist,
      );
      this.ratedScans.set(key, scan);
    }
    return scan;
  }

  /** The slice of a `graph --shard` build the file holds (server/graph/shardMeta.ts); null when it is no shard. */
  shardMeta(): ShardMeta | null {
    return this.guard(() => readShardTable(this.db));
  }

  close(): void {
    this.statements.clear();
    closeVisDb(this.opened);
  }

  /**
   * Matching rows in execution order. Few matches: ordered by their ancestor walks (memoised links, compared
   * pre-order). Many, or very deep ones: by the graph's pre-order ranks, built once per graph. The answer stops
   * before MAX_FIND_ANSWER_CHARS of ids and paths.
   */
  private find(q: SearchQuery | FilterQuery, where: string, params: unknown[]): FindResponse {
    return this.guard(() => {
      if (!this.sides().includes(q.side)) return { total: 0, results: [] };
      const { step, rank } = this.graph(q);
      const source = SOURCES[q.side];
      const rowids = this.stmt(`SELECT n.rowid FROM tb_nodes n WHERE n.step = ? AND n.rank = ? AND n.data_source = ? AND ${where}`)
        .pluck()
        .all(step, rank, source, ...params) as number[];
      // A count (limit 0, e.g. an overlay's unmatched counts) needs no order: no walk, no pre-order ranks.
      if (q.limit === 0) return { total: rowids.length, results: [] };
      const byRowid = this.stmt(`SELECT ${summaryColumns(this.schema)} FROM tb_nodes n WHERE n.rowid = ?`);
      const links: Links = new Map();
      const hit = (r: number) => {
        const summary = rowSummary(foundRow(byRowid.get(r) as SummaryRow | undefined, r));
        const link = this.link(source, step, rank, summary.id, links);
        if (!link) throw new DamagedRowError(`tb_nodes row ${r} cannot be found by its node_name`);
        return { summary, link };
      };
      // Few matches: resolved and sorted by their walks. Many (or very deep): the first `limit` in pre-order rank,
      // resolved one by one as the answer fills, so an answer cut short by its size does no further work.
      let ordered: Array<ReturnType<typeof hit> | number> | undefined;
      if (rowids.length <= (this.o.pathSortMax ?? PATH_SORT_MAX)) {
        const found = rowids.map(hit);
        if (found.reduce((sum, f) => sum + f.link.depth, 0) <= PATH_SORT_MAX_DEPTHS) {
          ordered = found.sort((a, b) => comparePreorder(a.link, b.link));
        }
      }
      if (!ordered) {
        // Mark the matches by rank, then read the first `limit` in rank order: typed-array work, no sort.
        const ranks = this.preorder(source, step, rank);
        const marked = new Uint8Array(ranks.size);
        for (const r of rowids) {
          const k = ranks.rankOf(r);
          if (k >= 0) marked[k] = 1;
        }
        ordered = [];
        for (let k = 0; k < ranks.size && ordered.length < q.limit; k++) if (marked[k]) ordered.push(ranks.rowidAt[k]);
      }
      const results: FindResponse['results'] = [];
      let chars = 0;
      for (const item of ordered.slice(0, q.limit)) {
        const { summary, link } = typeof item === 'number' ? hit(item) : item;
        const path = pathOf(link);
        for (const id of path) chars += id.length + 3;
        chars += summary.id.length + 3;
        if (chars > MAX_FIND_ANSWER_CHARS) break;
        results.push({ ...summary, path });
      }
      return { total: rowids.length, results };
    });
  }

  private preorder(source: string, step: number, rank: number): PreorderRanks {
    const key = `${step}/${rank}/${source}`;
    let r = this.ranks.get(key);
    if (!r) {
      r = buildPreorderRanks(
        this.stmt('SELECT rowid, node_name, up_node FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? ORDER BY node_order'),
        [step, rank, source],
      );
      this.ranks.set(key, r);
    }
    return r;
  }

  /**
   * The node's link, following up_node (index2) until the root (''), a missing name or a memoised link. A cycle
   * or a chain deeper than MAX_DEPTH is damage: nothing of that walk is memoised, and the request answers 422.
   */
  private link(source: string, step: number, rank: number, name: string, memo: Links): Link | null {
    const known = memo.get(name);
    if (known !== undefined) return known;
    const lookup = this.stmt(
      'SELECT rowid, up_node, node_order FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ? LIMIT 1',
    );
    const walked: Array<{ name: string; order: number }> = [];
    const onWalk = new Set<string>();
    let top: Link | null = null;
    for (let n: string | null = name; n !== null; ) {
      checkBudget();
      const hit = memo.get(n);
      if (hit !== undefined) {
        top = hit;
        break;
      }
      if (onWalk.has(n)) throw new DamagedRowError(`the up_node chain of "${clip(name)}" loops back to "${clip(n)}"`);
      if (walked.length > MAX_DEPTH) throw new DamagedRowError(`the up_node chain of "${clip(name)}" is deeper than ${MAX_DEPTH} levels`);
      onWalk.add(n);
      const row = lookup.get(step, rank, source, n) as { rowid: number; up_node: unknown; node_order: unknown } | undefined;
      if (!row) {
        memo.set(n, null);
        break;
      }
      walked.push({ name: n, order: toInt(row.node_order) ?? 0 });
      n = row.up_node === null || row.up_node === '' ? null : nameText(row.up_node, 'up_node', row.rowid);
    }
    let parent = top;
    for (let i = walked.length - 1; i >= 0; i--) {
      const depth = parent ? parent.depth + 1 : 0;
      if (depth > MAX_DEPTH) throw new DamagedRowError(`the up_node chain of "${clip(name)}" is deeper than ${MAX_DEPTH} levels`);
      parent = { ...walked[i], parent, depth };
      memo.set(walked[i].name, parent);
    }
    return memo.get(name) ?? null;
  }

  private exists(source: string, step: number, rank: number, name: string): boolean {
    return (
      this.stmt('SELECT 1 FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ? LIMIT 1')
        .pluck()
        .get(step, rank, source, name) !== undefined
    );
  }

  private rootOf(side: Side, step: number, rank: number): string | undefined {
    return this.stmt(
      "SELECT node_name FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND up_node = '' ORDER BY node_order DESC LIMIT 1",
    )
      .pluck()
      .get(step, rank, SOURCES[side]) as string | undefined;
  }

  private sides(): Side[] {
    return this.config.graphType === 'compare' ? ['npu', 'bench'] : ['npu'];
  }

  /** The requested step and rank, defaulting to the first listed; one the file does not hold is an error. */
  private graph(q: GraphSelector): { step: number; rank: number } {
    const step = q.step ?? this.config.steps[0] ?? 0;
    const rank = q.rank ?? this.config.ranks[0] ?? 0;
    if (!this.config.steps.includes(step) || !this.config.ranks.includes(rank)) throw new UnknownGraphError(this.o.file, step, rank);
    return { step, rank };
  }

  private readConfig(): Config {
    const s = this.schema;
    const cols = ['graph_type', ...(['task', 'tool_tip', 'micro_steps', 'overflow_check', 'node_colors', 'rank_list', 'step_list'] as const).map(
      (c) => `${s.config(c)} AS ${c}`,
    )];
    const row = this.db.prepare(`SELECT ${cols.join(', ')} FROM tb_config ORDER BY (id = '1') DESC LIMIT 1`).get() as
      | Record<string, unknown>
      | undefined;
    if (!row) throw new GraphFileError(this.o.file, 'table tb_config has no row: the graph command did not finish');
    const task = typeof row.task === 'string' && TASKS.includes(row.task as Task) ? (row.task as Task) : '';
    const steps = this.intList(row.step_list, 'step');
    const ranks = this.intList(row.rank_list, 'rank');
    return {
      graphType: row.graph_type === 'compare' ? 'compare' : 'build',
      task,
      microSteps: Math.max(1, toInt(row.micro_steps) ?? 1),
      overflowCheck: (toInt(row.overflow_check) ?? 0) !== 0,
      colors: colorBuckets(parseText(row.node_colors)),
      toolTips: toolTips(row.tool_tip),
      steps,
      ranks,
      graphs: this.graphPairs(steps, ranks),
    };
  }

  /** The listed pairs that hold rows: one probe of index3's (step, rank) prefix each, ~1 µs (10^4 pairs in ms). */
  private graphPairs(steps: number[], ranks: number[]): Array<[number, number]> {
    const probe = this.db.prepare('SELECT 1 FROM tb_nodes WHERE step = ? AND rank = ? LIMIT 1').pluck();
    const pairs: Array<[number, number]> = [];
    for (const step of steps) for (const rank of ranks) if (probe.get(step, rank) !== undefined) pairs.push([step, rank]);
    return pairs;
  }

  /** tb_config's JSON list, or the distinct values in tb_nodes when it is missing or unreadable. */
  private intList(text: unknown, column: 'step' | 'rank'): number[] {
    const parsed = parseText(text);
    const list = Array.isArray(parsed) ? parsed.map(toInt).filter((n): n is number => n !== null) : [];
    if (list.length > 0) return [...new Set(list)].sort((a, b) => a - b);
    return this.db.prepare(`SELECT DISTINCT ${column} FROM tb_nodes ORDER BY ${column}`).pluck().all() as number[];
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** Every failure of a request names the file: SQLite errors, damage found in rows, and engine errors alike. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      // Only the per-request work budget passes through, for the route's 503.
      throw e instanceof WorkBudgetExceeded ? e : asFileError(this.o.file, e);
    }
  }
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    // openVisDb reports it
    return null;
  }
}

/** Names from a damaged file can be anything: messages quote at most 200 characters. */
function clip(name: string): string {
  return name.length > 200 ? `${name.slice(0, 200)}…` : name;
}

function parseText(v: unknown): unknown {
  if (typeof v !== 'string') return undefined;
  try {
    return parsePyJson(v, { maxDepth: MAX_BUILT_DEPTH });
  } catch {
    return undefined;
  }
}
