import { closeSync, openSync, readSync } from 'node:fs';
import type { GraphType } from '../../../src/core/api/types.js';
import type { ShardMeta } from '../../graph/shardMeta.js';
import { idList } from '../../graph/shards.js';
import type { Message } from '../../i18n/messages.js';
import type { GraphFileError } from '../graphStore.js';

/**
 * A directory's shard files of one `graph --shard K/N` build (issue 19), `{kind}_{key}_shard{K}of{N}.vis.db`, served
 * as one graph without merging: which files take part, and what to say when the set is not whole. The listing
 * (server/logdir/scanLogdir.ts) and the store over the set (shardSetStore.ts) plan it the same way, from each file's
 * probe (openStore.ts probeDb: its graph type, problem and shard record, server/graph/shardMeta.ts).
 */

/** A shard file's tag: the set's tag (the build's name without the shard suffix), K and N. */
export interface ShardTag {
  setTag: string;
  index: number;
  count: number;
  /** Named as `graph --shard` names it (K zero-padded to N−1's width, shards.ts shardStem). */
  canonical: boolean;
}

const SHARD_TAG = /^(.+)_shard(\d{1,6})of(\d{1,6})$/;

export function parseShardTag(tag: string): ShardTag | null {
  const m = SHARD_TAG.exec(tag);
  if (!m) return null;
  const index = Number(m[2]);
  const count = Number(m[3]);
  if (index >= count) return null;
  return { setTag: m[1], index, count, canonical: m[2] === String(index).padStart(String(count - 1).length, '0') };
}

/** Shard files in shard order; of two files of one slice the one named as `graph --shard` names it first. */
export function compareShardFiles(a: { name: ShardTag; relPath: string }, b: { name: ShardTag; relPath: string }): number {
  return a.name.index - b.name.index || Number(b.name.canonical) - Number(a.name.canonical) || a.relPath.localeCompare(b.relPath);
}

/** The set's name in errors and the listing: its files' common pattern in the run directory. */
export function shardSetRelPath(dirRelPath: string, setTag: string, count: number): string {
  const name = `${setTag}_shard*of${count}.vis.db`;
  return dirRelPath === '' ? name : `${dirRelPath}/${name}`;
}

export interface ShardProbe {
  graphType: GraphType | null;
  error: GraphFileError | null;
  /** The file's shard record; null when it has none (or cannot be read: `error`). */
  shard: ShardMeta | null;
}

export interface ShardCandidate<R> {
  ref: R;
  relPath: string;
  name: ShardTag;
  probe: ShardProbe;
}

export interface ShardSetPlan<R> {
  /** The shards that are served, in shard order: readable, of the set's build, each slice once. */
  members: Array<{ ref: R; relPath: string; meta: ShardMeta }>;
  graphType: GraphType | null;
  /** One line on what is not whole (missing shards, files left out), for the listing; null when whole. */
  note: Message | null;
  /** Set when no shard can be served: the first file's problem. */
  error: Message | null;
}

/**
 * The members of a set, in shard order. The build is the one the set's name (its key and N) says, as recorded by
 * the lowest readable shard whose record agrees; a file of another build, one that repeats a slice, one whose pairs
 * another member holds already, or one that cannot be read is left out, named in the note.
 */
export function planShardSet<R>(setRelPath: string, candidates: ReadonlyArray<ShardCandidate<R>>): ShardSetPlan<R> {
  const sorted = [...candidates].sort(compareShardFiles);
  const count = sorted[0]?.name.count ?? 0;
  const key = keyOf(sorted[0]?.name.setTag ?? '');
  const reference = sorted.find((c) => c.probe.shard && c.probe.shard.shards === c.name.count && (key === null || c.probe.shard.build === key))?.probe.shard ?? null;
  const members: ShardSetPlan<R>['members'] = [];
  const leftOut: Array<{ file: string; problem: string }> = [];
  const held = new Map<string, string>();
  const slices = new Set<number>();
  for (const c of sorted) {
    const meta = c.probe.shard;
    if (c.probe.error) {
      leftOut.push({ file: c.relPath, problem: c.probe.error.problem });
      continue;
    }
    if (!meta) {
      leftOut.push({ file: c.relPath, problem: 'not a shard: it has no shard record (probeboard graph --shard writes one)' });
      continue;
    }
    if (!reference || meta.build !== reference.build || meta.shards !== reference.shards || meta.kind !== reference.kind) {
      leftOut.push({ file: c.relPath, problem: `a shard of another build (build ${meta.build}, ${meta.shards} shards)` });
      continue;
    }
    if (slices.has(meta.shard)) {
      leftOut.push({ file: c.relPath, problem: `shard ${meta.shard} of ${meta.shards} a second time` });
      continue;
    }
    const overlap = meta.pairs.find(([s, r]) => held.has(`${s}/${r}`));
    if (overlap) {
      leftOut.push({ file: c.relPath, problem: `overlaps ${held.get(`${overlap[0]}/${overlap[1]}`)} (both hold step ${overlap[0]} rank ${overlap[1]})` });
      continue;
    }
    slices.add(meta.shard);
    for (const [s, r] of meta.pairs) held.set(`${s}/${r}`, c.relPath);
    members.push({ ref: c.ref, relPath: c.relPath, meta });
  }
  const shards = reference?.shards ?? count;
  const missing = [...Array(shards).keys()].filter((k) => !slices.has(k));
  const graphType = sorted.find((c) => c.probe.graphType !== null && members.some((m) => m.ref === c.ref))?.probe.graphType ?? null;
  const error: Message | null =
    members.length === 0 && sorted.length > 0 ? { key: 'fileUnreadable', params: { file: leftOut[0].file, problem: leftOut[0].problem } } : null;
  let note: Message | null = null;
  if (!error && leftOut.length > 0) {
    // Slices whose file is not there at all; a file left out is named once.
    const absent = missing.filter((k) => !sorted.some((c) => c.name.index === k)).length;
    const more = leftOut.length - 1 + absent;
    note = { key: 'shardLeftOut', params: { file: leftOut[0].file, problem: leftOut[0].problem, more: more > 0 ? ` (+${more})` : '' } };
  } else if (!error && missing.length > 0) {
    note = { key: 'shardsMissing', params: { file: setRelPath, missing: idList(missing), count: shards } };
  }
  return { members, graphType, note, error };
}

/** The build key in a shard set's tag (`build_{key}` / `compare_{key}`), or null for a renamed set. */
function keyOf(setTag: string): string | null {
  return /_([0-9a-f]{12})$/.exec(setTag)?.[1] ?? null;
}

/**
 * A file cut short (a shard job killed while copying, a full disk): SQLite's header records the database's page
 * count (valid when its version-valid-for number matches the change counter, sqlite.org/fileformat2.html §1.3), so a
 * file shorter than that is truncated, found without reading its pages. Null when whole or when the header cannot say.
 */
export function truncationProblem(absPath: string, size: number): string | null {
  const header = Buffer.alloc(100);
  let fd: number;
  try {
    fd = openSync(absPath, 'r');
  } catch {
    return null; // the open reports it
  }
  try {
    if (readSync(fd, header, 0, 100, 0) < 100) return null;
  } finally {
    closeSync(fd);
  }
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = header.readUInt32BE(28);
  if (pages === 0 || header.readUInt32BE(24) !== header.readUInt32BE(92)) return null;
  const expected = pages * pageSize;
  return size < expected ? `truncated: ${size} bytes of the ${expected} its header records (a copy or a build cut short)` : null;
}
