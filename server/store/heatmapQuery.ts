import { statSync } from 'node:fs';
import type { HeatmapResponse, HeatmapRow } from '../../src/core/api/types.js';
import { GraphFileError, guardStore, type GraphStore } from './graphStore.js';
import type { GraphFileRef, OpenResult } from './openStore.js';
import { closeVisDb, dbStamp, openVisDb } from './visDb/openDb.js';
import { readSchema } from './visDb/dbSchema.js';
import { checkBudget } from './workBudget.js';
import { worstEnd } from './worstQuery.js';

/**
 * Issue 14's rank × top-level-module heatmap (`/api/graph/heatmap`), run in the find worker like the worst table.
 * A cell is the worst finite precision_index in the subtree of one root child on one rank (NPU side; md5: the lowest).
 * - `.vis.db`: per rank, the root's children and the rated rows in node_order: a node's subtree is the run of
 *   `node_order` values up to its own, since node_order is a post-order (msprobe-format.md §4.2), so each rated row
 *   falls in the first root child at or after its order. Reading a rank means reading its rows (~4 ms for 400
 *   nodes with their records): ranks not read within `softMs` are answered `pending`, as for `.vis` files.
 * - per-rank `.vis` files: each file opened as the routes open it and asked for its root's children and its rated
 *   nodes worst first (the worst table's order), until every column has its worst. Answers are kept per file by
 *   size + mtime, so a thousand files are read once; past `softMs` the files not read yet are answered `pending`
 *   and the client asks again.
 */

export interface HeatmapQuery {
  step: number;
  /** A run's per-rank `.vis` files (server/logdir/rankFiles.ts); absent for a `.vis.db`, which holds its ranks. */
  files?: Array<{ rank: number; ref: GraphFileRef }>;
  /** Files not read after this many ms are answered `pending`. */
  softMs: number;
}

export type OpenGraph = (ref: GraphFileRef) => OpenResult;

/** Columns shown; a root with more children (a flat graph of APIs) is cut here and the rest counted. */
export const MAX_HEATMAP_COLUMNS = 1000;
const WORST_PAGE = 2000;
const MAX_CACHED = 16_384;

/** One rank's root children and the worst value under each (null = none rated). */
interface RankCells {
  modules: string[];
  values: Array<number | null>;
  more: number;
}

const NO_CELLS: RankCells = { modules: [], values: [], more: 0 };

/** Answers per file (`.vis`: path; `.vis.db`: path + step) and stamp; Map order makes the first key the oldest. */
const visCache = new Map<string, { stamp: string; cells: RankCells }>();
const dbCache = new Map<string, { stamp: string; byRank: Map<number, RankCells> }>();

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > MAX_CACHED) map.delete(map.keys().next().value!);
}

export function heatmap(store: GraphStore, ref: GraphFileRef, q: HeatmapQuery, open: OpenGraph): HeatmapResponse {
  const started = performance.now();
  const meta = store.meta(ref.format === 'db' ? { step: q.step } : {});
  const worst = worstEnd(meta.task);
  const rows: Array<{ row: HeatmapRow; cells: RankCells }> = [];
  if (ref.format === 'db') {
    const compare = meta.graphType === 'compare';
    const byRank = compare ? guardStore(ref.relPath, () => dbCells(ref, q.step, worst, meta.ranks, started + q.softMs)) : new Map<number, RankCells>();
    for (const rank of meta.ranks) {
      const cells = byRank.get(rank);
      rows.push({ row: { rank, tag: ref.tag, format: 'db', state: cells || !compare ? 'ok' : 'pending' }, cells: cells ?? NO_CELLS });
    }
  } else {
    for (const { rank, ref: file } of q.files ?? []) {
      const row: HeatmapRow = { rank, tag: file.tag, format: 'vis', state: 'ok' };
      let cells: RankCells = NO_CELLS;
      try {
        const known = cachedVis(file);
        if (known) cells = known;
        else if (performance.now() - started > q.softMs) row.state = 'pending';
        else {
          const opened = open(file);
          if ('store' in opened) cells = visCells(file, opened.store);
          else row.state = 'pending';
        }
      } catch (e) {
        if (!(e instanceof GraphFileError)) throw e;
        row.state = 'error';
        row.error = e.message;
      }
      rows.push({ row, cells });
    }
  }
  return assemble(rows, { step: q.step, worst, colors: meta.colors });
}

/** Columns in first-seen order across ranks; cells of ranks without a column are listed as absent. */
function assemble(
  rows: Array<{ row: HeatmapRow; cells: RankCells }>,
  head: Pick<HeatmapResponse, 'step' | 'worst' | 'colors'>,
): HeatmapResponse {
  const column = new Map<string, number>();
  let dropped = 0;
  let more = 0;
  for (const { cells } of rows) {
    more = Math.max(more, cells.more);
    for (const id of cells.modules) {
      if (column.has(id)) continue;
      if (column.size < MAX_HEATMAP_COLUMNS) column.set(id, column.size);
      else dropped++;
    }
  }
  const width = column.size;
  const values: Array<number | null> = new Array(rows.length * width).fill(null);
  const absent: number[] = [];
  rows.forEach(({ row, cells }, r) => {
    const present = new Uint8Array(width);
    cells.modules.forEach((id, k) => {
      const c = column.get(id);
      if (c === undefined) return;
      present[c] = 1;
      values[r * width + c] = cells.values[k];
    });
    if (row.state === 'ok') for (let c = 0; c < width; c++) if (!present[c]) absent.push(r * width + c);
  });
  return {
    ...head,
    modules: [...column.keys()],
    moreModules: dropped + more,
    rows: rows.map((r) => r.row),
    values,
    absent,
    pending: rows.some((r) => r.row.state === 'pending'),
  };
}

function fileStamp(absPath: string): string {
  const s = statSync(absPath);
  return `${s.size}:${s.mtimeMs}:${s.ino}`;
}

function cachedVis(file: GraphFileRef): RankCells | undefined {
  let stamp: string;
  try {
    stamp = fileStamp(file.absPath);
  } catch (e) {
    throw new GraphFileError(file.relPath, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const hit = visCache.get(file.absPath);
  return hit?.stamp === stamp ? hit.cells : undefined;
}

/** One `.vis`: its root's children, then its rated nodes worst first until each child has its worst. */
function visCells(file: GraphFileRef, store: GraphStore): RankCells {
  const stamp = fileStamp(file.absPath);
  const meta = store.meta();
  const root = meta.roots.npu;
  const kids = root === undefined ? undefined : store.children({ side: 'npu', nodeId: root, limit: MAX_HEATMAP_COLUMNS });
  const modules = kids ? kids.children.map((c) => c.id) : [];
  const cells: RankCells = { modules, values: new Array(modules.length).fill(null), more: kids ? (kids.total ?? modules.length) - modules.length : 0 };
  const column = new Map(modules.map((id, k) => [id, k]));
  let left = meta.graphType === 'compare' ? modules.length : 0;
  for (let offset = 0; left > 0; offset += WORST_PAGE) {
    const page = store.worst({ side: 'npu', order: 'precision', offset, limit: WORST_PAGE });
    for (const found of page.results) {
      // path = root … parent: the root child is path[1], or the node itself one level down.
      if (found.path[0] !== root) continue;
      const k = column.get(found.path.length >= 2 ? found.path[1] : found.id);
      if (k === undefined || cells.values[k] !== null) continue;
      cells.values[k] = found.precisionIndex;
      left--;
    }
    if (offset + WORST_PAGE >= page.total) break;
  }
  remember(visCache, file.absPath, { stamp, cells });
  return cells;
}

/**
 * Ranks of one step of a `.vis.db`, from its own read-only connection (openDb.ts), each kept per stamp once read.
 * Rank by rank on msprobe's indexes (index1 for the root's children, index3 for a rank's rows in node_order), so
 * the rows read are that rank's own and contiguous; ranks not reached by `until` are left for the next request.
 */
function dbCells(ref: GraphFileRef, step: number, worst: 'high' | 'low', ranks: number[], until: number): Map<number, RankCells> {
  const stamp = dbStamp(ref.absPath, statSync(ref.absPath));
  const key = `${ref.absPath}\u0000${step}`;
  let entry = dbCache.get(key);
  if (entry?.stamp !== stamp) entry = { stamp, byRank: new Map() };
  remember(dbCache, key, entry);
  const todo = ranks.filter((r) => !entry.byRank.has(r));
  if (todo.length === 0) return entry.byRank;
  const opened = openVisDb(ref.absPath, ref.relPath);
  try {
    const db = opened.db;
    const p = readSchema(db, ref.relPath).node('precision_index');
    const where = "step = ? AND rank = ? AND data_source = 'NPU'";
    const rootOf = db.prepare(`SELECT node_name FROM tb_nodes WHERE ${where} AND up_node = '' ORDER BY node_order DESC LIMIT 1`).pluck();
    const tops = db.prepare(`SELECT node_name, node_order FROM tb_nodes WHERE ${where} AND up_node = ? ORDER BY node_order`).raw();
    const rated = db
      .prepare(
        `SELECT node_order, ${p} FROM tb_nodes n WHERE ${where} AND typeof(${p}) IN ('integer', 'real')
         AND ${p} BETWEEN -1.7976931348623157e308 AND 1.7976931348623157e308 ORDER BY node_order`,
      )
      .raw();
    for (const rank of todo) {
      if (performance.now() > until) break;
      const cells: RankCells = { modules: [], values: [], more: 0 };
      const orders: number[] = [];
      const root = rootOf.get(step, rank);
      for (const [name, order] of (root === undefined ? [] : tops.iterate(step, rank, root)) as Iterable<[unknown, number]>) {
        checkBudget();
        if (cells.modules.length >= MAX_HEATMAP_COLUMNS) {
          cells.more++;
          continue;
        }
        cells.modules.push(String(name));
        cells.values.push(null);
        orders.push(Number(order));
      }
      for (const [order, v] of (orders.length === 0 ? [] : rated.iterate(step, rank)) as Iterable<[number, number]>) {
        checkBudget();
        const k = firstAtOrAfter(orders, Number(order));
        // Past the last root child: the root itself (or a row outside the tree).
        if (k === orders.length) continue;
        const old = cells.values[k];
        if (old === null || (worst === 'high' ? v > old : v < old)) cells.values[k] = v;
      }
      entry.byRank.set(rank, cells);
    }
    return entry.byRank;
  } finally {
    closeVisDb(opened);
  }
}

/** Index of the first element ≥ x in an ascending list (list.length when none). */
function firstAtOrAfter(list: number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
