import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { GraphType } from '../../src/core/api/types.js';
import { FileProblem } from '../../src/core/fileProblem.js';
import { GraphFileError } from '../store/graphStore.js';
import type { Message } from '../i18n/messages.js';
import type { GraphFormat, StoreCache } from '../store/openStore.js';
import { naturalCompare } from './naturalSort.js';
import { sniffVis } from './sniffVis.js';
import { eventGraphTag, splitTbTag, tbFileFormat } from '../store/tbGraph/tbFiles.js';
import { compareShardFiles, parseShardTag, planShardSet, shardSetRelPath, type ShardProbe, type ShardTag } from '../store/visDb/shardSet.js';

/**
 * Finds graph files under the log dir. Unlike the reference viewer (two levels, run = basename, colliding names;
 * reference-viewer.md §4.1) a run is the directory path relative to the log dir, so nested layouts such as
 * `case/vis-202507/` stay distinct. Hidden entries are skipped; symlinks are followed only while their target stays
 * inside the log dir, and each real directory is visited once (no loops).
 */

export const MAX_SCAN_DEPTH = 4;
const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 256;

export interface ScannedTag {
  tag: string;
  format: GraphFormat;
  sizeBytes: number;
  graphType: GraphType | null;
  error: Message | null;
  /** An event file's graph: the step of its record. */
  step?: number;
  /**
   * A TensorBoard-side graph that opens, once opened: what its reader noted (the first, and how many more). A shard
   * set: what is not whole.
   */
  note?: Message;
  /** The shard files of one build listed as this one graph (issue 19): N, how many are served, their union. */
  shards?: { count: number; members: number; steps: number[]; ranks: number[] };
}
export interface ScannedRun {
  run: string;
  tags: ScannedTag[];
}

/** The file-name suffix of each format; `.vis.db` is tested first because it also ends in neither `.vis`. */
export function splitGraphFileName(name: string): { tag: string; format: GraphFormat } | null {
  if (name.startsWith('.')) return null;
  if (name.endsWith('.vis.db') && name.length > 7) return { tag: name.slice(0, -7), format: 'db' };
  if (name.endsWith('.vis') && name.length > 4) return { tag: name.slice(0, -4), format: 'vis' };
  return null;
}

export function graphFileName(tag: string, format: GraphFormat): string {
  if (format === 'db') return `${tag}.vis.db`;
  if (format === 'vis') return `${tag}.vis`;
  return splitTbTag(tag)?.fileName ?? tag;
}

export function isInside(rootReal: string, target: string): boolean {
  return target === rootReal || target.startsWith(rootReal.endsWith(path.sep) ? rootReal : rootReal + path.sep);
}

/**
 * `logdirReal` must be a realpath. Runs and tags come back in natural order, '.' (the log dir itself) first. An event
 * file not scanned yet at its current size is left out and its scan's promise pushed to `pending`: scan again once
 * they settle for the full listing. `name` (a `--logdir_spec` name, logRoots.ts) prefixes every run and file name.
 */
export function scanLogdir(
  logdirReal: string,
  cache: StoreCache,
  maxDepth = MAX_SCAN_DEPTH,
  pending?: Array<Promise<unknown>>,
  name: string | null = null,
): ScannedRun[] {
  const runs: ScannedRun[] = [];
  const visited = new Set<string>([logdirReal]);

  const visit = (dirAbs: string, parts: string[]) => {
    let entries;
    try {
      entries = readdirSync(dirAbs, { withFileTypes: true });
    } catch {
      return; // unreadable directory: nothing to list, the rest of the tree still is
    }
    const runParts = name === null ? parts : [name, ...parts];
    const run = runParts.length === 0 ? '.' : runParts.join('/');
    const tags: ScannedTag[] = [];
    const subdirs: Array<{ name: string; real: string }> = [];
    const shardFiles = new Map<string, ShardFile[]>();
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const abs = path.join(dirAbs, entry.name);
      let real = abs;
      let stats: Stats;
      try {
        if (entry.isSymbolicLink()) {
          real = realpathSync(abs);
          if (!isInside(logdirReal, real)) continue;
        }
        stats = statSync(real);
      } catch {
        continue; // dangling link or a file removed while scanning
      }
      if (stats.isDirectory()) {
        if (parts.length < maxDepth && !visited.has(real)) subdirs.push({ name: entry.name, real });
        continue;
      }
      const named = stats.isFile() ? splitGraphFileName(entry.name) : null;
      const relPath = path.posix.join(...runParts, entry.name);
      const shard = named?.format === 'db' ? parseShardTag(named.tag) : null;
      if (named && shard) {
        const group = shardFiles.get(shard.setTag) ?? [];
        shardFiles.set(shard.setTag, [...group, { abs: real, relPath, named, stats, shard }]);
      } else if (named) tags.push(describeSafely(real, relPath, run, named, stats, cache));
      else if (stats.isFile()) tags.push(...describeTb(real, relPath, entry.name, stats, cache, pending));
    }
    for (const [setTag, files] of shardFiles) {
      // A file of the set's own name is what the tag opens (resolveGraphFile.ts): then each shard is its own entry.
      if (tags.some((t) => t.format === 'db' && t.tag === setTag)) {
        for (const f of files) tags.push(describeSafely(f.abs, f.relPath, run, f.named, f.stats, cache));
      } else tags.push(describeShardSet(setTag, files, runParts, run, cache));
    }
    if (tags.length > 0) {
      tags.sort(compareTags);
      runs.push({ run, tags });
    }
    for (const d of subdirs.sort((a, b) => naturalCompare(a.name, b.name))) {
      if (visited.has(d.real)) continue;
      visited.add(d.real);
      visit(d.real, [...parts, d.name]);
    }
  };
  visit(logdirReal, []);
  return runs.sort(compareRuns);
}

/** Tags in natural order, a `.vis` before the `.vis.db` of its name. */
export const compareTags = (a: ScannedTag, b: ScannedTag): number => naturalCompare(a.tag, b.tag) || (a.format === 'vis' ? -1 : 1);
/** Runs in natural order, '.' (the log dir itself) first. */
export const compareRuns = (a: ScannedRun, b: ScannedRun): number => (a.run === '.' ? -1 : b.run === '.' ? 1 : naturalCompare(a.run, b.run));

/**
 * TensorBoard-side files (issue 16): a GraphDef or ONNX file is one tag (its name); an event file one tag per graph
 * record, with its step, plus one tag (the file's name) naming the damage that stopped its scan (the graphs before
 * it still open); event files of scalars only are not graphs and are left out, as TensorBoard's Graphs dashboard
 * does. A 0-byte file is listed with that problem without being read.
 */
function describeTb(abs: string, relPath: string, name: string, stats: Stats, cache: StoreCache, pending?: Array<Promise<unknown>>): ScannedTag[] {
  const format = tbFileFormat(name);
  if (!format) return [];
  const base = { format, sizeBytes: stats.size, graphType: 'build' as const };
  const problemOf = (problem: string | null): Message | null =>
    problem === null ? null : { key: 'fileUnreadable', params: { file: relPath, problem } };
  if (stats.size === 0) return [{ ...base, tag: name, graphType: null, error: problemOf('empty file (0 bytes)') }];
  // Known once the graph has been opened: a newer ONNX IR version, an input naming no node.
  const noteOf = (graph: string | null): { note?: Message } => {
    const notes = cache.tb.knownNotes(abs, graph, stats);
    const note = notes.length > 1 ? `${notes[0]} (and ${notes.length - 1} more)` : notes[0];
    return note === undefined ? {} : { note: { key: 'fileNote', params: { file: relPath, note } } };
  };
  if (format !== 'tfevents') return [{ ...base, tag: name, error: problemOf(cache.tb.knownProblem(abs, stats)), ...noteOf(null) }];
  const listing = cache.tb.events(abs, stats);
  if (listing instanceof Promise) {
    pending?.push(listing);
    return [];
  }
  const graphs: ScannedTag[] = listing.graphs.map((g) => ({ ...base, tag: eventGraphTag(name, g.tag), step: g.step, error: null, ...noteOf(g.tag) }));
  return listing.problem === null ? graphs : [...graphs, { ...base, tag: name, graphType: null, error: problemOf(listing.problem) }];
}

interface ShardFile {
  abs: string;
  relPath: string;
  named: { tag: string; format: GraphFormat };
  stats: Stats;
  shard: ShardTag;
}

/**
 * The shard files of one build in one directory (issue 19) as one entry: the set's tag, format `db`, the union of the
 * served shards' steps and ranks, and a note when shards are missing or left out (shardSet.ts), as opening it serves.
 */
function describeShardSet(setTag: string, files: ShardFile[], runParts: string[], run: string, cache: StoreCache): ScannedTag {
  const candidates = files.map((f) => ({ ref: f, relPath: f.relPath, name: f.shard, probe: probeSafely(f, run, cache) }));
  // Named by its first file in shard order, as resolveGraphFile names it.
  const first = candidates.map((c) => ({ name: c.name, relPath: c.relPath, file: c.ref })).sort(compareShardFiles)[0].file;
  const plan = planShardSet(shardSetRelPath(runParts.join('/'), setTag, first.shard.count), candidates);
  const pairs = plan.members.flatMap((m) => m.meta.pairs);
  const sorted = (ns: number[]) => [...new Set(ns)].sort((a, b) => a - b);
  return {
    tag: setTag,
    format: 'db',
    sizeBytes: files.reduce((n, f) => n + f.stats.size, 0),
    graphType: plan.graphType,
    error: plan.error,
    ...(plan.note ? { note: plan.note } : {}),
    shards: {
      count: plan.members[0]?.meta.shards ?? first.shard.count,
      members: plan.members.length,
      steps: sorted(pairs.map(([s]) => s)),
      ranks: sorted(pairs.map(([, r]) => r)),
    },
  };
}

function probeSafely(f: ShardFile, run: string, cache: StoreCache): ShardProbe {
  try {
    return cache.probeDb({ absPath: f.abs, relPath: f.relPath, format: 'db', run, tag: f.named.tag }, f.stats);
  } catch (e) {
    const problem = e instanceof FileProblem ? e.problem : e instanceof Error ? e.message : String(e);
    return { graphType: null, error: new GraphFileError(f.relPath, problem), shard: null };
  }
}

/** One file's failure, whatever it is, is listed as that file's error: the listing itself never fails (issue 12 #1). */
function describeSafely(...args: Parameters<typeof describeFile>): ScannedTag {
  try {
    return describeFile(...args);
  } catch (e) {
    const [, relPath, , named, stats] = args;
    const problem = e instanceof FileProblem ? e.problem : e instanceof Error ? e.message : String(e);
    return {
      tag: named.tag,
      format: named.format,
      sizeBytes: stats.size,
      graphType: null,
      error: { key: 'fileUnreadable', params: { file: relPath, problem } },
    };
  }
}

function describeFile(
  abs: string,
  relPath: string,
  run: string,
  named: { tag: string; format: GraphFormat },
  stats: Stats,
  cache: StoreCache,
): ScannedTag {
  const base = { tag: named.tag, format: named.format, sizeBytes: stats.size };
  if (named.format === 'db') {
    // Every .vis.db is listed (the reference viewer shows only a directory's first one, reference-viewer.md §4.1);
    // opening one read-only takes a millisecond, so the listing knows its type or why it will not open.
    const probe = cache.probeDb({ absPath: abs, relPath, format: 'db', run, tag: named.tag }, stats);
    const error: Message | null = probe.error
      ? { key: 'fileUnreadable', params: { file: probe.error.file, problem: probe.error.problem } }
      : null;
    return { ...base, graphType: probe.graphType, error };
  }
  // A file already opened (or already refused) at this size and mtime: its full parse knows better than a sniff.
  const known = cache.peek(abs, stats, 'vis');
  if (known && 'store' in known) return { ...base, graphType: known.store.meta().graphType, error: null };
  if (known && 'error' in known) {
    const e = known.error;
    return { ...base, graphType: null, error: { key: 'fileUnreadable', params: { file: e.file, problem: e.problem } } };
  }
  let sniff;
  try {
    const { head, tail } = readEnds(abs, stats.size);
    sniff = sniffVis(head, tail, stats.size);
  } catch (e) {
    sniff = { graphType: null, problem: `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
  }
  return {
    ...base,
    graphType: sniff.graphType,
    error: sniff.problem ? { key: 'fileUnreadable', params: { file: relPath, problem: sniff.problem } } : null,
  };
}

function readEnds(abs: string, size: number): { head: string; tail: string } {
  const fd = openSync(abs, 'r');
  try {
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    const headRead = readSync(fd, head, 0, head.length, 0);
    const tailLen = Math.min(TAIL_BYTES, size);
    const tail = Buffer.alloc(tailLen);
    const tailRead = readSync(fd, tail, 0, tailLen, size - tailLen);
    return { head: head.subarray(0, headRead).toString('utf8'), tail: tail.subarray(0, tailRead).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}
