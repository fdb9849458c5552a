import fs from 'node:fs';
import path from 'node:path';

/**
 * `mkdir -p`: creates `dir` and its missing parents (each with `mode`); returns the outermost directory it created,
 * or undefined when `dir` already existed. Node 20's `mkdirSync(dir, { recursive: true })` never returns on some
 * paths (under /proc, where mkdir answers ENOENT although the parent exists); here every level is one plain mkdir,
 * and its error is thrown.
 */
export function makeDirs(dir: string, mode = 0o777): string | undefined {
  const missing: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    let stat: fs.Stats | null = null;
    try {
      stat = fs.statSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (stat) {
      if (!stat.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${d}'`), { code: 'ENOTDIR' });
      break;
    }
    missing.push(d);
    if (path.dirname(d) === d) break;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      fs.mkdirSync(missing[i], { mode });
    } catch (e) {
      // Made meanwhile by someone else: fine, as mkdir -p.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return missing.length ? missing[missing.length - 1] : undefined;
}
