import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { MAX_VIS_CONFIG_CHARS, parseVisConfig, VisConfigError } from '../../src/core/match/index.js';
import { HttpError } from '../http/httpError.js';
import { naturalCompare } from '../logdir/naturalSort.js';
import { isInside } from '../logdir/scanLogdir.js';
import type { GraphFileRef } from '../store/openStore.js';

/**
 * `.vis.config` match files in a graph file's run directory (reference-viewer.md §2.1, §3.5): the directory the
 * resolved file is in, inside the log dir. Names are plain file names (no path, not hidden) ending `.vis.config`, so a
 * request can name nothing else; a link pointing outside the log dir is refused like a graph file's.
 */

const SUFFIX = '.vis.config';
/** The original's `safe_save_data` name rule, also what we accept for reading. */
const NAME = /^[^/\\\0]+$/;
const MAX_NAME = 255;

/** The run directory of a resolved graph file: where configs are listed, read and written. */
export function runDirOf(ref: GraphFileRef): string {
  return path.dirname(ref.absPath);
}

/** The config names of the run directory, natural order (unreadable entries are left out). */
export function listConfigs(logdirReal: string, ref: GraphFileRef): string[] {
  const dir = runDirOf(ref);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.endsWith(SUFFIX) && !n.startsWith('.') && regularInside(logdirReal, path.join(dir, n))).sort(naturalCompare);
}

/** `file=` of the config routes: why the name is not a config name, or null. */
export function configNameProblem(name: string): string | null {
  if (name === '') return 'empty';
  if (name.length > MAX_NAME) return `longer than ${MAX_NAME} characters`;
  if (!NAME.test(name) || name === '.' || name === '..') return 'a file name, not a path';
  if (name.startsWith('.')) return 'hidden files are not read';
  if (!name.endsWith(SUFFIX) || name === SUFFIX) return `the name must end "${SUFFIX}"`;
  return null;
}

/** The pairs of a config in the run directory; 400 / 403 / 404 / 413 / 422 naming the file. */
export function readConfig(logdirReal: string, ref: GraphFileRef, name: string): Array<[string, string]> {
  const problem = configNameProblem(name);
  if (problem) throw new HttpError(400, 'badConfigName', { file: name.slice(0, 200), reason: problem });
  const file = path.join(runDirOf(ref), name);
  const shown = path.posix.join(path.posix.dirname(ref.relPath), name);
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    throw new HttpError(404, 'configUnreadable', { file: shown, problem: 'no such file' });
  }
  if (!isInside(logdirReal, real)) throw new HttpError(403, 'outsideLogdir', { value: shown });
  let fd: number;
  try {
    fd = openSync(real, 'r');
  } catch (e) {
    throw new HttpError(422, 'configUnreadable', { file: shown, problem: `cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})` });
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new HttpError(422, 'configUnreadable', { file: shown, problem: 'not a regular file' });
    // Characters ≤ bytes in UTF-8: a file within the byte cap holds at most that many characters.
    if (st.size > MAX_VIS_CONFIG_CHARS) throw new HttpError(413, 'configUnreadable', { file: shown, problem: `larger than ${MAX_VIS_CONFIG_CHARS / 2 ** 20} MiB` });
    const bytes = Buffer.alloc(st.size);
    for (let at = 0; at < st.size; ) {
      const n = readSync(fd, bytes, at, st.size - at, at);
      if (n <= 0) break;
      at += n;
    }
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError(422, 'configUnreadable', { file: shown, problem: e instanceof TypeError ? 'not UTF-8 text' : String(e) });
  } finally {
    closeSync(fd);
  }
  try {
    // A UTF-8 byte order mark is not JSON; Windows editors add one.
    return parseVisConfig(text.replace(/^\uFEFF/, ''), shown);
  } catch (e) {
    if (e instanceof VisConfigError) throw new HttpError(422, 'configUnreadable', { file: shown, problem: e.problem });
    throw e;
  }
}

function regularInside(logdirReal: string, file: string): boolean {
  try {
    if (!lstatSync(file).isFile() && !lstatSync(file).isSymbolicLink()) return false;
    const real = realpathSync(file);
    return isInside(logdirReal, real) && lstatSync(real).isFile();
  } catch {
    return false;
  }
}
