import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Message } from '../i18n/messages.js';
import type { GraphFileRef, GraphFormat } from '../store/openStore.js';
import { graphFileName, isInside, MAX_SCAN_DEPTH } from './scanLogdir.js';
import { splitTbTag } from '../store/tbGraph/tbFiles.js';

/**
 * Turns the `run` and `tag` query values into a file inside the log dir, or says why not. Lexical checks first
 * (400: `..`, absolute, NUL, backslash, empty segments), then the real path must stay inside the log dir (403:
 * symlink escapes). Only what the scanner would list resolves (no hidden names, bounded depth), else 404.
 */

export type Resolved = { ok: true; ref: GraphFileRef } | { ok: false; status: 400 | 403 | 404; message: Message };

export function resolveGraphFile(
  logdirReal: string,
  run: string,
  tag: string,
  format?: GraphFormat,
  maxDepth = MAX_SCAN_DEPTH,
): Resolved {
  const bad = (value: string, reason: string): Resolved => ({
    ok: false,
    status: 400,
    message: { key: 'badPath', params: { value, reason } },
  });
  const runProblem = lexicalProblem(run, true);
  if (runProblem) return bad(run, runProblem);
  const tagProblem = lexicalProblem(tag, false);
  if (tagProblem) return bad(tag, tagProblem);

  const parts = run === '.' ? [] : run.split('/');
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
  if (!candidate) return existsSync(dir) ? unknownTag : unknownRun;

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
  const relPath = path.posix.join(...parts, graphFileName(tag, candidate.f));
  return { ok: true, ref: { absPath: real, relPath, format: candidate.f, run, tag } };
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
