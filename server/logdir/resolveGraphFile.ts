import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Message } from '../i18n/messages.js';
import type { GraphFileRef, GraphFormat, ShardFileRef } from '../store/openStore.js';
import { compareShardFiles, parseShardTag, shardSetRelPath, type ShardTag } from '../store/visDb/shardSet.js';
import type { LogRoots } from './logRoots.js';
import { graphFileName, isInside, MAX_SCAN_DEPTH, splitGraphFileName } from './scanLogdir.js';
import { splitTbTag } from '../store/tbGraph/tbFiles.js';

/**
 * Turns the `run` and `tag` query values into a file inside the log dir, or says why not. Lexical checks first
 * (400: `..`, absolute, NUL, backslash, empty segments), then the real path must stay inside the log dir (403:
 * symlink escapes). Only what the scanner would list resolves (no hidden names, bounded depth), else 404. With
 * several roots (`--logdir_spec`, logRoots.ts) each root that may hold the run is tried in order, the file staying
 * inside that root; the first that has it wins, as in the merged listing.
 */

export type Resolved = { ok: true; ref: GraphFileRef } | { ok: false; status: 400 | 403 | 404; message: Message };

export function resolveGraphFile(roots: LogRoots, run: string, tag: string, format?: GraphFormat, maxDepth = MAX_SCAN_DEPTH): Resolved {
  const bad = (value: string, reason: string): Resolved => ({
    ok: false,
    status: 400,
    message: { key: 'badPath', params: { value, reason } },
  });
  const given = run;
  // TensorBoard names a `--logdir_spec` root's own directory `name/.`: that run is ours `name`.
  run = roots.roots.some((r) => r.name !== null && given === `${r.name}/.`) ? given.slice(0, -2) : given;
  const runProblem = lexicalProblem(run, true);
  if (runProblem) return bad(given, runProblem);
  const tagProblem = lexicalProblem(tag, false);
  if (tagProblem) return bad(tag, tagProblem);
  let first: Resolved | null = null;
  for (const { root, parts } of roots.locate(run)) {
    const resolved = resolveIn(root.real, parts, run, tag, format, maxDepth);
    if (resolved.ok) return resolved;
    first ??= resolved;
  }
  return first ?? { ok: false, status: 404, message: { key: 'unknownRun', params: { run } } };
}

function resolveIn(logdirReal: string, parts: string[], run: string, tag: string, format: GraphFormat | undefined, maxDepth: number): Resolved {
  const unknownRun: Resolved = { ok: false, status: 404, message: { key: 'unknownRun', params: { run } } };
  const unknownTag: Resolved = { ok: false, status: 404, message: { key: 'unknownTag', params: { run, tag } } };
  if (parts.length > maxDepth || parts.some((p) => p.startsWith('.'))) return unknownRun;
  if (tag.startsWith('.')) return unknownTag;

  const dir = path.join(logdirReal, ...parts);
  // A TensorBoard-side tag is (or starts with) its file's whole name, so it never shadows a `.vis` of that tag.
  const tb = splitTbTag(tag)?.format;
  const formats: GraphFormat[] = format ? [format] : ['vis', 'db', ...(tb ? [tb] : [])];
  const candidate = formats
    .filter((f) => f === 'vis' || f === 'db' || f === tb)
    .map((f) => ({ f, abs: path.join(dir, graphFileName(tag, f)) }))
    .find((c) => existsSync(c.abs));
  if (!candidate) {
    const set = formats.includes('db') ? resolveShardSet(logdirReal, dir, run, tag) : null;
    return set ?? (existsSync(dir) ? unknownTag : unknownRun);
  }

  let real: string;
  try {
    real = realpathSync(candidate.abs);
  } catch {
    return unknownTag;
  }
  if (!isInside(logdirReal, real)) {
    return { ok: false, status: 403, message: { key: 'outsideLogdir', params: { value: `${run}/${tag}` } } };
  }
  if (!statSync(real).isFile()) return unknownTag;
  // Named in errors as the listing names it: the run (a `--logdir_spec` name included), then the file.
  const relPath = path.posix.join(...(run === '.' ? [] : run.split('/')), graphFileName(tag, candidate.f));
  return { ok: true, ref: { absPath: real, relPath, format: candidate.f, run, tag } };
}

/**
 * A tag naming no file may name a set of shard files of one build, `{tag}_shard{K}of{N}.vis.db` (issue 19), which the
 * listing shows as one graph when no `{tag}.vis.db` exists: every such file inside the log dir, in shard order.
 */
function resolveShardSet(logdirReal: string, dir: string, run: string, tag: string): Resolved | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  const runRel = run === '.' ? '' : run;
  const files: Array<ShardFileRef & { name: ShardTag }> = [];
  for (const name of names) {
    const named = splitGraphFileName(name);
    const shard = named?.format === 'db' ? parseShardTag(named.tag) : null;
    if (!named || !shard || shard.setTag !== tag) continue;
    try {
      const real = realpathSync(path.join(dir, name));
      if (!isInside(logdirReal, real) || !statSync(real).isFile()) continue;
      files.push({ absPath: real, relPath: path.posix.join(...(runRel ? runRel.split('/') : []), name), tag: named.tag, name: shard });
    } catch {
      continue; // dangling link, removed meanwhile
    }
  }
  if (files.length === 0) return null;
  files.sort(compareShardFiles);
  const shards = files.map(({ absPath, relPath, tag: t }) => ({ absPath, relPath, tag: t }));
  return { ok: true, ref: { absPath: files[0].absPath, relPath: shardSetRelPath(runRel, tag, files[0].name.count), format: 'db', run, tag, shards } };
}

function lexicalProblem(value: string, isRun: boolean): string | null {
  if (value === '') return 'empty';
  if (value.includes('\0')) return 'contains a NUL byte';
  if (value.includes('\\')) return 'contains a backslash';
  if (value.startsWith('/') || /^[A-Za-z]:/.test(value)) return 'absolute paths are not allowed';
  if (isRun && value === '.') return null;
  if (!isRun && value.includes('/')) return 'a tag is a file name, not a path';
  for (const segment of value.split('/')) {
    if (segment === '..') return '".." is not allowed';
    if (segment === '.' || segment === '') return 'empty or "." path segment';
  }
  return null;
}
