import { realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isInside } from './scanLogdir.js';

/**
 * The directories a server reads: `--logdir DIR` (one root, runs named relative to it), or TensorBoard's
 * `--logdir_spec name1:dir1,name2:dir2` (runs `name1`, `name1/sub`…; an entry without a name names its runs relative
 * to its dir, as `--logdir` does). Every containment rule holds per root: a file, a symlink's target, a match config
 * or a tensor dump must stay inside the root its run was found in.
 */

export interface LogdirEntry {
  /** null: runs named relative to the dir, as with `--logdir`. */
  name: string | null;
  dir: string;
}

export interface LogRoot {
  name: string | null;
  /** realpath of the directory: containment checks compare against it. */
  real: string;
}

export class LogRoots {
  constructor(
    readonly roots: readonly LogRoot[],
    /** What the listing shows as the log dir (the dir, or the spec with absolute dirs). */
    readonly shown: string,
  ) {}

  /** Checks each dir (realpath, a directory); throws an Error naming the dir otherwise. */
  static open(logdir: string | readonly LogdirEntry[]): LogRoots {
    const entries = typeof logdir === 'string' ? [{ name: null, dir: logdir }] : logdir;
    if (entries.length === 0) throw new Error('no log directory given');
    const roots = entries.map((e) => {
      const abs = path.resolve(e.dir);
      const real = realpathSync(abs);
      if (!statSync(real).isDirectory()) throw new Error(`${abs} is not a directory`);
      return { name: e.name, real, abs };
    });
    const shown = typeof logdir === 'string' ? roots[0].abs : roots.map((r) => (r.name === null ? r.abs : `${r.name}:${r.abs}`)).join(',');
    return new LogRoots(roots.map(({ name, real }) => ({ name, real })), shown);
  }

  /** The roots that may hold `run`, with the run's directory parts under each, in spec order. */
  locate(run: string): Array<{ root: LogRoot; parts: string[] }> {
    const found: Array<{ root: LogRoot; parts: string[] }> = [];
    for (const root of this.roots) {
      if (root.name === null) found.push({ root, parts: run === '.' ? [] : run.split('/') });
      else if (run === root.name) found.push({ root, parts: [] });
      else if (run.startsWith(`${root.name}/`)) found.push({ root, parts: run.slice(root.name.length + 1).split('/') });
    }
    return found;
  }

  /**
   * realpath of the root a resolved file of `run` lies in (its containment root for configs and tensor dumps), or
   * null when none holds it.
   */
  rootOf(ref: { run: string; absPath: string }): string | null {
    return this.locate(ref.run).find((c) => isInside(c.root.real, ref.absPath))?.root.real ?? null;
  }
}

/**
 * `--logdir_spec`, split as TensorBoard splits it: entries by ',', then `name:dir` at the first ':' unless the entry
 * starts with '/' (a path with a colon), is a URI (`gs://…`, refused: only local dirs are read) or a Windows drive
 * path. `:dir` and plain `dir` entries have no name. A leading `~` is the home directory. Throws a one-line problem.
 */
export function parseLogdirSpec(spec: string): LogdirEntry[] {
  const entries: LogdirEntry[] = [];
  for (const item of spec.split(',')) {
    if (item === '') throw new Error('an empty entry (two commas, or a comma at an end)');
    if (/^[a-zA-Z][0-9a-zA-Z.]*:\/\//.test(item)) throw new Error(`${item}: only local directories can be read`);
    const named = item.includes(':') && !item.startsWith('/') && !(process.platform === 'win32' && /^[A-Za-z]:[\\/]/.test(item));
    const cut = item.indexOf(':');
    const name = named ? item.slice(0, cut) : '';
    const dir = named ? item.slice(cut + 1) : item;
    if (dir === '') throw new Error(`${item}: no directory after the name`);
    const problem = name === '' ? null : runNameProblem(name);
    if (problem) throw new Error(`${item}: the run name "${name}" ${problem}`);
    entries.push({ name: name === '' ? null : name, dir: dir === '~' || dir.startsWith('~/') ? path.join(os.homedir(), dir.slice(1)) : dir });
  }
  return entries;
}

/** A name the run checks of the routes accept (resolveGraphFile.ts), or why not. */
function runNameProblem(name: string): string | null {
  if (/[\0\\]/.test(name)) return 'contains a NUL byte or a backslash';
  if (name.startsWith('/')) return 'starts with "/"';
  if (name.split('/').some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.'))) return 'has an empty, "." or ".." part, or a hidden one';
  return null;
}
