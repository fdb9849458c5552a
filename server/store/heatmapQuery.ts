import { statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import type { ColorBucket, HeatmapResponse, HeatmapRow } from '../../src/core/api/types.js';
import { bucketColor } from '../../src/core/colors/buckets.js';
import { parseRankTag } from '../../src/core/ranks/rankTag.js';
import { ShardSetStore } from './visDb/shardSetStore.js';
import { readDerived, writeDerived, type TypedArray } from './derivedCache.js';
import { GraphFileError, guardStore, type GraphStore } from './graphStore.js';
import { continueWhenIdle } from './idleWork.js';
import type { GraphFileRef, OpenResult } from './openStore.js';
import { closeVisDb, dbStamp, openVisDb } from './visDb/openDb.js';
import { readSchema } from './visDb/dbSchema.js';
import { sameStamp, type FileStamp } from './visJsonIndex/visIndex.js';
import { checkBudget } from './workBudget.js';
import { worstEnd } from './worstQuery.js';

/**
 * Issue 14's rank × top-level-module heatmap (`/api/graph/heatmap`), run in the find worker like the worst table.
 * A cell is the worst finite precision_index in the subtree of one root child on one rank (NPU side; md5: the lowest).
 * An answer is one window of rows (ranks in rank order), so only the ranks a client shows are read and sent.
 * - `.vis.db`: per rank, the root's children and the rated rows in node_order: a node's subtree is the run of
 *   `node_order` values up to its own, since node_order is a post-order (msprobe-format.md §4.2), so each rated row
 *   falls in the first root child at or after its order. Reading a rank means reading its rows (~4 ms for 400
 *   nodes with their records): ranks not read within `softMs` are answered `pending`, as for `.vis` files.
 * - per-rank `.vis` files: each file opened as the routes open it and asked for its root's children and its rated
 *   nodes worst first (the worst table's order), until every column has its worst; past `softMs` the files not
 *   read yet are answered `pending` and the client asks again.
 * Cells once read are kept in memory and, written after the answer, in our cache directory (derivedCache.ts): a
 * `.vis.db`'s per file, step and stamp; a `.vis` run's per run, each file's cells with that file's own size + mtime +
 * inode. A server restarted on the same runs paints from there instead of reading the ranks again.
 */

export interface HeatmapQuery {
  step: number;
  /** The rows asked for, in rank order: [rankOffset, rankOffset + rankLimit). */
  rankOffset: number;
  rankLimit: number;
  /**
   * A run's per-rank `.vis` files (server/logdir/rankFiles.ts) in the window, and how many the run has; absent for a
   * `.vis.db`, which holds its ranks.
   */
  files?: Array<{ rank: number; ref: GraphFileRef }>;
  totalFiles?: number;
  /** Ranks not read after this many ms are answered `pending`. */
  softMs: number;
}

export type OpenGraph = (ref: GraphFileRef) => OpenResult;

/** Our cache directory (the server's `--cache_dir`), where read cells outlive the process; null = memory only. */
export interface HeatmapCache {
  cacheDir: string;
  maxBytes?: number;
}

/** How long one answer reads ranks before answering the rest `pending` (the route's `softMs`). */
export const HEATMAP_SOFT_MS = 150;
/** Columns shown; a root with more children (a flat graph of APIs) is cut here and the rest counted. */
export const MAX_HEATMAP_COLUMNS = 1000;
const WORST_PAGE = 2000;
/** Files / steps kept in memory: the disk cache holds the rest. */
const MAX_DB_ENTRIES = 8;
const MAX_VIS_RUNS = 8;
/** derivedCache kinds (a new layout is a new kind). */
const DB_KIND = 'heatmap-db-v1';
const VIS_KIND = 'heatmap-vis-v1';
/** A `.vis` run's entry is valid per file (the stamps inside), not per directory. */
const RUN_STAMP: FileStamp = { size: 0, mtimeMs: 0, ino: 0 };

/** One rank's root children and the worst value under each (null = none rated). */
interface RankCells {
  modules: string[];
  values: Array<number | null>;
  more: number;
}

const NO_CELLS: RankCells = { modules: [], values: [], more: 0 };

interface DbEntry {
  stamp: string;
  byRank: Map<number, RankCells>;
  /** Where and for which file version the cells are persisted; null = not (no cache dir, live WAL). */
  persist: { cache: HeatmapCache; stamp: FileStamp } | null;
  /** Ranks the find worker reads while idle, in this order, and whether it is at it. */
  later: number[];
  reading: boolean;
}
interface VisFileCells {
  stamp: FileStamp;
  cells: RankCells;
}

/** `.vis.db` cells per file + step; `.vis` cells per run (directory + command + step + ts), per file path. */
const dbCache = new Map<string, DbEntry>();
const visRuns = new Map<string, Map<string, VisFileCells>>();

/** Map order makes the first key the least recently used. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}

export function heatmap(store: GraphStore, ref: GraphFileRef, q: HeatmapQuery, open: OpenGraph, cache: HeatmapCache | null = null): HeatmapResponse {
  const started = performance.now();
  const meta = store.meta(ref.format === 'db' ? { step: q.step } : {});
  const worst = worstEnd(meta.task);
  const head = { step: q.step, worst, colors: meta.colors, rankOffset: q.rankOffset };
  const rows: Array<{ row: HeatmapRow; cells: RankCells }> = [];
  if (ref.format === 'db') {
    const compare = meta.graphType === 'compare';
    const window = meta.ranks.slice(q.rankOffset, q.rankOffset + q.rankLimit);
    const file: DbFile = { ref, step: q.step, worst, colors: meta.colors };
    const byRank =
      !compare || window.length === 0
        ? new Map<number, RankCells>()
        : store instanceof ShardSetStore
          ? shardSetCells(store, file, window, meta.ranks, started + q.softMs, cache)
          : guardStore(ref.relPath, () => dbCells(file, window, meta.ranks, started + q.softMs, cache));
    for (const rank of window) {
      const cells = byRank.get(rank);
      rows.push({ row: { rank, tag: ref.tag, format: 'db', state: cells || !compare ? 'ok' : 'pending' }, cells: cells ?? NO_CELLS });
    }
    return assemble(rows, { ...head, totalRanks: meta.ranks.length });
  }
  const files = q.files ?? [];
  const run = visRun(ref, cache);
  let read = false;
  for (const { rank, ref: file } of files) {
    const row: HeatmapRow = { rank, tag: file.tag, format: 'vis', state: 'ok' };
    let cells: RankCells = NO_CELLS;
    try {
      const stamp = stampOf(file);
      const known = run?.files.get(file.absPath);
      if (known && sameStamp(known.stamp, stamp)) cells = known.cells;
      else if (performance.now() - started > q.softMs) row.state = 'pending';
      else {
        const opened = open(file);
        if ('store' in opened) {
          cells = visCells(opened.store);
          run?.files.set(file.absPath, { stamp, cells });
          read = true;
        } else row.state = 'pending';
      }
    } catch (e) {
      if (!(e instanceof GraphFileError)) throw e;
      row.state = 'error';
      row.error = e.message;
    }
    rows.push({ row, cells });
  }
  if (read && run && cache) persistLater(`${VIS_KIND}\u0000${run.dir}\u0000${run.key}`, () => saveVisRun(cache, run));
  return assemble(rows, { ...head, totalRanks: q.totalFiles ?? files.length });
}

/** Columns in first-seen order across the window's ranks; each `ok` row's values by column, absent ones listed. */
function assemble(
  rows: Array<{ row: HeatmapRow; cells: RankCells }>,
  head: Pick<HeatmapResponse, 'step' | 'worst' | 'colors' | 'totalRanks' | 'rankOffset'>,
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
  for (const { row, cells } of rows) {
    if (row.state !== 'ok') continue;
    const values: Array<number | null> = new Array(width).fill(null);
    const present = new Uint8Array(width);
    cells.modules.forEach((id, k) => {
      const c = column.get(id);
      if (c === undefined) return;
      present[c] = 1;
      values[c] = cells.values[k];
    });
    row.values = values;
    const absent: number[] = [];
    for (let c = 0; c < width; c++) if (!present[c]) absent.push(c);
    if (absent.length > 0) row.absent = absent;
  }
  return {
    ...head,
    modules: [...column.keys()],
    moreModules: dropped + more,
    rows: rows.map((r) => r.row),
    pending: rows.some((r) => r.row.state === 'pending'),
  };
}

/**
 * A cell's value as kept and sent (HeatmapRow.values): 6 significant digits — about half the JSON of a full double —
 * unless that moves it to another of the file's colour buckets or changes its 4-digit display (the tooltip's
 * formatPrecision); then as it is. Done once, when a rank is read (~3 µs a cell, too slow for every answer).
 */
function compact(v: number, colors: readonly ColorBucket[]): number {
  if (Number.isInteger(v)) return v;
  const q = Number(v.toPrecision(6));
  return q.toPrecision(4) === v.toPrecision(4) && bucketColor(colors, q) === bucketColor(colors, v) ? q : v;
}

function stampOf(file: GraphFileRef): FileStamp {
  let s: Stats;
  try {
    s = statSync(file.absPath);
  } catch (e) {
    throw new GraphFileError(file.relPath, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino };
}

/** One `.vis`: its root's children, then its rated nodes worst first until each child has its worst. */
function visCells(store: GraphStore): RankCells {
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
  cells.values = cells.values.map((v) => (v === null ? null : compact(v, meta.colors)));
  return cells;
}

interface VisRun {
  dir: string;
  key: string;
  files: Map<string, VisFileCells>;
}

/** The cells known for `ref`'s run of per-rank files: in memory, else as a previous process persisted them. */
function visRun(ref: GraphFileRef, cache: HeatmapCache | null): VisRun | null {
  const own = parseRankTag(ref.tag);
  if (!own) return null;
  const dir = path.dirname(ref.absPath);
  const key = `${own.kind}_step${own.step}_${own.ts}`;
  const memoKey = `${dir}\u0000${key}`;
  let files = visRuns.get(memoKey);
  if (!files) {
    files = new Map();
    const hit = cache ? readDerived(cache.cacheDir, VIS_KIND, dir, key, RUN_STAMP) : null;
    const names = hit?.header.files;
    const cells = hit ? unpackCells(hit.header, hit.arrays) : null;
    const stamps = hit?.arrays[3];
    if (cells && Array.isArray(names) && names.length === cells.length && stamps instanceof Float64Array && stamps.length === 3 * cells.length) {
      cells.forEach((c, k) => {
        const name = names[k];
        // Base names only: an entry never points outside its directory.
        if (typeof name !== 'string' || path.basename(name) !== name) return;
        files!.set(path.join(dir, name), { stamp: { size: stamps[3 * k], mtimeMs: stamps[3 * k + 1], ino: stamps[3 * k + 2] }, cells: c });
      });
    }
  }
  remember(visRuns, memoKey, files, MAX_VIS_RUNS);
  return { dir, key, files };
}

function saveVisRun(cache: HeatmapCache, run: VisRun): void {
  const entries = [...run.files];
  const packed = packCells(entries.map(([, f]) => f.cells));
  const stamps = new Float64Array(3 * entries.length);
  entries.forEach(([, f], k) => stamps.set([f.stamp.size, f.stamp.mtimeMs, f.stamp.ino], 3 * k));
  const header = { ...packed.header, files: entries.map(([file]) => path.basename(file)) };
  writeDerived(cache.cacheDir, VIS_KIND, run.dir, run.key, RUN_STAMP, header, [...packed.arrays, stamps], cache.maxBytes);
}

/** Entries to write, by file: each write packs what is known when it runs, so the last one asked for is enough. */
const unsaved = new Map<string, () => void>();

/**
 * Cells are written to the cache after the answer: in the find worker when it has no request (idleWork.ts; ~20–70 ms
 * for 1,000 ranks × 100 modules, fsync included), on the server's own thread (no worker) at once. A cache that cannot
 * be written costs the next process a read of the ranks, never an answer.
 */
function persistLater(key: string, write: () => void): void {
  unsaved.set(key, write);
  if (isMainThread) writeUnsaved(Infinity);
  else continueWhenIdle(writeUnsaved);
}

function writeUnsaved(maxMs: number): boolean {
  const started = performance.now();
  for (const [key, write] of unsaved) {
    unsaved.delete(key);
    try {
      write();
    } catch {
      // ENOSPC, EACCES…: the cells stay in memory.
    }
    if (performance.now() - started > maxMs) break;
  }
  return unsaved.size === 0;
}

interface DbFile {
  ref: GraphFileRef;
  step: number;
  worst: 'high' | 'low';
  colors: readonly ColorBucket[];
}

/**
 * Ranks of one step of a `.vis.db`, each kept per stamp once read. The ranks asked for not read by `until` are left
 * for the next request; in the find worker the step's other ranks are read meanwhile, when it has no request
 * (idleWork.ts; ~4 s for 1,000 ranks of 400 nodes), the window's first: a scroll finds them read, and the cache
 * directory gets the whole step for the next server.
 */
function dbCells(file: DbFile, window: number[], all: number[], until: number, cache: HeatmapCache | null): Map<number, RankCells> {
  const { ref, step } = file;
  // Stamped before reading: a file replaced meanwhile is stamped older than what was read, so is read again.
  const st = statSync(ref.absPath);
  const stamp = dbStamp(ref.absPath, st);
  const key = `${ref.absPath}\u0000${step}`;
  let entry = dbCache.get(key);
  if (entry?.stamp !== stamp) {
    // A live WAL (a writer at work) is not covered by the file's stamp: such a file is not persisted (openDb.ts).
    const fileStamp: FileStamp = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
    const persisted = cache && !liveWal(ref.absPath) ? { cache, stamp: fileStamp } : null;
    entry = { stamp, byRank: new Map(), persist: persisted, later: [], reading: false };
    const hit = persisted ? readDerived(persisted.cache.cacheDir, DB_KIND, ref.absPath, `step=${step}`, fileStamp) : null;
    const cells = hit ? unpackCells(hit.header, hit.arrays) : null;
    const stored = hit?.header.ranks;
    if (cells && Array.isArray(stored) && stored.length === cells.length && stored.every(Number.isSafeInteger)) {
      stored.forEach((rank: number, k) => entry!.byRank.set(rank, cells[k]));
    }
  }
  remember(dbCache, key, entry, MAX_DB_ENTRIES);
  const known = entry.byRank;
  const todo = window.filter((r) => !known.has(r));
  if (todo.length > 0 && readRanks(file, known, todo, until) > 0) saveDbLater(file, entry);
  if (!isMainThread && known.size < all.length) {
    // The latest window first: the one the client is asking again for.
    entry.later = [...window, ...all];
    if (!entry.reading) {
      const current = entry;
      current.reading = true;
      continueWhenIdle((maxMs) => {
        let done = true;
        try {
          // The file changed or left the memory: its reading stops here.
          if (dbCache.get(key) !== current) return true;
          const left = current.later.filter((r) => !known.has(r));
          if (left.length > 0 && readRanks(file, known, left, performance.now() + maxMs) > 0) saveDbLater(file, current);
          done = left.every((r) => known.has(r));
          return done;
        } finally {
          current.reading = !done;
        }
      });
    }
  }
  return known;
}

/**
 * A shard set's ranks (issue 19), each read from the shard file holding it at the step as dbCells reads one `.vis.db`
 * (and cached per shard file). A rank with no graph at the step has no cells.
 */
function shardSetCells(
  store: ShardSetStore<GraphFileRef>,
  file: DbFile,
  window: number[],
  all: number[],
  until: number,
  cache: HeatmapCache | null,
): Map<number, RankCells> {
  const holderOf = (rank: number): GraphFileRef | null => {
    try {
      return store.fileOf({ step: file.step, rank });
    } catch {
      return null;
    }
  };
  const shown = new Set(window);
  const groups = new Map<string, { ref: GraphFileRef; window: number[]; all: number[] }>();
  for (const rank of all) {
    const ref = holderOf(rank);
    if (!ref) continue;
    const group = groups.get(ref.absPath) ?? { ref, window: [], all: [] };
    group.all.push(rank);
    if (shown.has(rank)) group.window.push(rank);
    groups.set(ref.absPath, group);
  }
  const cells = new Map<number, RankCells>();
  for (const g of groups.values()) {
    if (g.window.length === 0) continue;
    const read = guardStore(g.ref.relPath, () => dbCells({ ...file, ref: g.ref }, g.window, g.all, until, cache));
    for (const rank of g.window) {
      const c = read.get(rank);
      if (c) cells.set(rank, c);
    }
  }
  for (const rank of window) if (!holderOf(rank)) cells.set(rank, NO_CELLS);
  return cells;
}

function saveDbLater(file: DbFile, entry: DbEntry): void {
  const p = entry.persist;
  if (!p) return;
  persistLater(`${DB_KIND}\u0000${file.ref.absPath}\u0000${file.step}`, () => {
    const ranks = [...entry.byRank.keys()];
    const packed = packCells(ranks.map((r) => entry.byRank.get(r)!));
    writeDerived(p.cache.cacheDir, DB_KIND, file.ref.absPath, `step=${file.step}`, p.stamp, { ...packed.header, ranks }, packed.arrays, p.cache.maxBytes);
  });
}

/**
 * Reads those of `ranks` not in `known` into it, in order, until `until`, from a read-only connection of its own
 * (openDb.ts); how many it read. Rank by rank on msprobe's indexes (index1 for the root's children, index3 for a
 * rank's rows in node_order), so the rows read are that rank's own and contiguous.
 */
function readRanks(file: DbFile, known: Map<number, RankCells>, ranks: number[], until: number): number {
  const { ref, step } = file;
  const opened = openVisDb(ref.absPath, ref.relPath);
  let read = 0;
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
    for (const rank of ranks) {
      if (performance.now() > until) break;
      if (known.has(rank)) continue;
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
        if (old === null || (file.worst === 'high' ? v > old : v < old)) cells.values[k] = v;
      }
      cells.values = cells.values.map((v) => (v === null ? null : compact(v, file.colors)));
      known.set(rank, cells);
      read++;
    }
  } finally {
    closeVisDb(opened);
  }
  return read;
}

function liveWal(absPath: string): boolean {
  return (statSync(`${absPath}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0;
}

/**
 * Ranks' cells as derivedCache arrays: each module name once in the header; per rank the end of its cells; per cell
 * its name's number and its value (NaN = none rated).
 */
function packCells(list: RankCells[]): { header: { names: string[]; more: number[] }; arrays: [Int32Array, Int32Array, Float64Array] } {
  const names = new Map<string, number>();
  let total = 0;
  for (const c of list) total += c.modules.length;
  const ends = new Int32Array(list.length);
  const columns = new Int32Array(total);
  const values = new Float64Array(total);
  let at = 0;
  list.forEach((c, r) => {
    c.modules.forEach((id, k) => {
      let n = names.get(id);
      if (n === undefined) names.set(id, (n = names.size));
      columns[at] = n;
      values[at++] = c.values[k] ?? NaN;
    });
    ends[r] = at;
  });
  return { header: { names: [...names.keys()], more: list.map((c) => c.more) }, arrays: [ends, columns, values] };
}

/** packCells read back, or null when the arrays do not fit together (the entry is then read again from the file). */
function unpackCells(header: Record<string, unknown>, arrays: TypedArray[]): RankCells[] | null {
  const { names, more } = header;
  const [ends, columns, values] = arrays;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string') || !Array.isArray(more)) return null;
  if (!(ends instanceof Int32Array) || !(columns instanceof Int32Array) || !(values instanceof Float64Array)) return null;
  if (more.length !== ends.length || columns.length !== values.length) return null;
  const out: RankCells[] = [];
  let from = 0;
  for (let r = 0; r < ends.length; r++) {
    const to = ends[r];
    if (to < from || to > columns.length || !Number.isSafeInteger(more[r]) || more[r] < 0) return null;
    const cells: RankCells = { modules: [], values: [], more: more[r] };
    for (let k = from; k < to; k++) {
      const name = names[columns[k]] as string | undefined;
      if (name === undefined) return null;
      cells.modules.push(name);
      cells.values.push(Number.isNaN(values[k]) ? null : values[k]);
    }
    out.push(cells);
    from = to;
  }
  return from === columns.length ? out : null;
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
