import type Database from 'better-sqlite3';
import type { ChildrenResponse, FindResponse, GraphMeta, NodeDetail, Side, Task } from '../../../src/core/api/types.js';
import { parsePyJson } from '../../../src/core/formats/pyJson.js';
import { filterIsOpen, type FilterQuery, type GraphSelector, type SearchQuery } from '../findQuery.js';
import { GraphFileError, UnknownGraphError, type ChildrenQuery, type GraphStore } from '../graphStore.js';
import { toInt } from '../visJson/nodeRecord.js';
import { colorBuckets, toolTips } from '../visJson/visJsonStore.js';
import { detailColumns, rowDetail, rowSummary, summaryColumns, type DetailRow, type SummaryRow } from './dbRows.js';
import { readSchema, type DbSchema } from './dbSchema.js';
import { dbError, openVisDb } from './openDb.js';
import { buildPreorderRanks, type PreorderRanks } from './preorderRanks.js';

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
}

const PATH_SORT_MAX = 2000;

interface Link {
  name: string;
  up: string | null;
  order: number;
}

/** Pre-order comparison of two root-first chains: the first differing sibling decides, an ancestor comes first. */
function compareChains(a: Link[], b: Link[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i].name !== b[i].name) return a[i].order - b[i].order;
  }
  return a.length - b.length;
}

const TASKS: readonly Task[] = ['summary', 'md5', 'all', 'structure'];
const SOURCES: Record<Side, string> = { npu: 'NPU', bench: 'Bench' };

interface Config {
  graphType: GraphMeta['graphType'];
  task: Task;
  microSteps: number;
  overflowCheck: boolean;
  colors: GraphMeta['colors'];
  toolTips: GraphMeta['toolTips'];
  steps: number[];
  ranks: number[];
}

export class VisDbStore implements GraphStore {
  private readonly db: Database.Database;
  private readonly schema: DbSchema;
  private readonly config: Config;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly metas = new Map<string, GraphMeta>();
  private readonly ranks = new Map<string, PreorderRanks>();

  constructor(absPath: string, private readonly o: VisDbStoreOptions) {
    this.db = openVisDb(absPath, o.file).db;
    try {
      this.schema = readSchema(this.db, o.file);
      this.config = this.readConfig();
    } catch (e) {
      this.db.close();
      throw dbError(o.file, e);
    }
  }

  meta(q: GraphSelector = {}): GraphMeta {
    return this.guard(() => {
      const { step, rank } = this.graph(q);
      const key = `${step}/${rank}`;
      let meta = this.metas.get(key);
      if (meta) return meta;
      const c = this.config;
      const roots: GraphMeta['roots'] = {};
      const nodeCounts: GraphMeta['nodeCounts'] = {};
      for (const side of this.sides()) {
        const root = this.rootOf(side, step, rank);
        if (root !== undefined) roots[side] = root;
        nodeCounts[side] = (this.stmt('SELECT count(*) AS c FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?')
          .get(step, rank, SOURCES[side]) as { c: number }).c;
      }
      meta = { run: this.o.run, tag: this.o.tag, format: 'db', ...c, roots, nodeCounts };
      this.metas.set(key, meta);
      return meta;
    });
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
      return { node, children: rows.map(rowSummary), total };
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
      return rowDetail(row, q.side, this.ancestors(SOURCES[q.side], step, rank, q.nodeId, new Map()));
    });
  }

  search(q: SearchQuery): FindResponse {
    const pattern = `%${q.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // LIKE folds ASCII case only, the rule findQuery.foldAscii gives the `.vis` stores.
    return this.find(q, "n.node_name LIKE ? ESCAPE '\\'", [pattern]);
  }

  filter(q: FilterQuery): FindResponse {
    const parts: string[] = [];
    const params: unknown[] = [];
    const precision = this.schema.node('precision_index');
    for (const [lo, hi] of q.precision) {
      if (lo === hi) {
        parts.push(`${precision} = ?`);
        params.push(lo);
      } else {
        parts.push(`(${precision} >= ? AND (${precision} < ? OR (? = 1 AND ${precision} = 1)))`);
        params.push(lo, hi, hi);
      }
    }
    if (q.unmatched) {
      const link = this.schema.node('matched_node_link');
      parts.push(`(${link} IS NULL OR ${link} IN ('', '[]'))`);
    }
    if (q.overflow.length > 0) {
      parts.push(`${this.schema.node('overflow_level')} IN (${q.overflow.map(() => '?').join(', ')})`);
      params.push(...q.overflow);
    }
    let where = filterIsOpen(q) ? '1' : `(${parts.join(' OR ')})`;
    if (q.leaves) {
      const sub = this.schema.node('sub_nodes');
      where += ` AND (${sub} IS NULL OR ${sub} IN ('', '[]'))`;
    }
    return this.find(q, where, params);
  }

  close(): void {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }

  /**
   * Matching rows in execution order. Few matches: ordered by their paths (the node_order of each ancestor, root
   * down, sorts siblings and puts a parent first). Many: by the graph's pre-order ranks, built once per graph.
   */
  private find(q: SearchQuery | FilterQuery, where: string, params: unknown[]): FindResponse {
    return this.guard(() => {
      if (!this.sides().includes(q.side)) return { total: 0, results: [] };
      const { step, rank } = this.graph(q);
      const source = SOURCES[q.side];
      const rowids = this.stmt(`SELECT n.rowid FROM tb_nodes n WHERE n.step = ? AND n.rank = ? AND n.data_source = ? AND ${where}`)
        .pluck()
        .all(step, rank, source, ...params) as number[];
      const byRowid = this.stmt(`SELECT ${summaryColumns(this.schema)} FROM tb_nodes n WHERE n.rowid = ?`);
      const chains = new Map<string, Link | null>();
      if (rowids.length <= (this.o.pathSortMax ?? PATH_SORT_MAX)) {
        const found = rowids.map((r) => {
          const summary = rowSummary(byRowid.get(r) as SummaryRow);
          const chain = this.chain(source, step, rank, summary.id, chains);
          return { summary, chain };
        });
        found.sort((a, b) => compareChains(a.chain, b.chain));
        const results = found.slice(0, q.limit).map(({ summary, chain }) => ({ ...summary, path: chain.slice(0, -1).map((l) => l.name) }));
        return { total: rowids.length, results };
      }
      // Mark the matches by rank, then read the first `limit` in rank order: typed-array work, no sort.
      const ranks = this.preorder(source, step, rank);
      const marked = new Uint8Array(ranks.size);
      for (const r of rowids) {
        const k = ranks.rankOf(r);
        if (k >= 0) marked[k] = 1;
      }
      const first: number[] = [];
      for (let k = 0; k < ranks.size && first.length < q.limit; k++) if (marked[k]) first.push(ranks.rowidAt[k]);
      const results = first.map((r) => {
        const summary = rowSummary(byRowid.get(r) as SummaryRow);
        return { ...summary, path: this.ancestors(source, step, rank, summary.id, chains) };
      });
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

  /** Ancestor names, root first, following up_node (index2). */
  private ancestors(source: string, step: number, rank: number, name: string, memo: Map<string, Link | null>): string[] {
    return this.chain(source, step, rank, name, memo)
      .slice(0, -1)
      .map((l) => l.name);
  }

  /** The node and its ancestors, root first; stops at the root (''), a missing name or a cycle. */
  private chain(source: string, step: number, rank: number, name: string, memo: Map<string, Link | null>): Link[] {
    const lookup = (n: string): Link | null => {
      let link = memo.get(n);
      if (link === undefined) {
        const row = this.stmt(
          'SELECT up_node, node_order FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ? LIMIT 1',
        ).get(step, rank, source, n) as { up_node: string | null; node_order: number } | undefined;
        link = row ? { name: n, up: row.up_node || null, order: row.node_order } : null;
        memo.set(n, link);
      }
      return link;
    };
    const out: Link[] = [];
    const seen = new Set<string>();
    for (let link = lookup(name); link && !seen.has(link.name); link = link.up === null ? null : lookup(link.up)) {
      seen.add(link.name);
      out.push(link);
    }
    return out.reverse();
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
    return {
      graphType: row.graph_type === 'compare' ? 'compare' : 'build',
      task,
      microSteps: Math.max(1, toInt(row.micro_steps) ?? 1),
      overflowCheck: (toInt(row.overflow_check) ?? 0) !== 0,
      colors: colorBuckets(parseText(row.node_colors)),
      toolTips: toolTips(row.tool_tip),
      steps: this.intList(row.step_list, 'step'),
      ranks: this.intList(row.rank_list, 'rank'),
    };
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

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw dbError(this.o.file, e);
    }
  }
}

function parseText(v: unknown): unknown {
  if (typeof v !== 'string') return undefined;
  try {
    return parsePyJson(v);
  } catch {
    return undefined;
  }
}
