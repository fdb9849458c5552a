import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * probeboard must never modify a file it reads (README "Safety"; issue 12): no `-wal` / `-shm` beside a served
 * `.vis.db`, no rewritten fixture. Every file of the test inputs (test/fixtures and ../shared/data) is hashed with
 * its mtime before the suite and again after it; any file changed, added or removed fails the run.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function snapshot(roots: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const st = statSync(p);
        out.set(p, `${st.size}:${st.mtimeMs}:${createHash('sha1').update(readFileSync(p)).digest('hex')}`);
      }
    }
  };
  for (const r of roots) if (existsSync(r)) walk(r);
  return out;
}

export default function setup(): () => void {
  const shared = process.env.PROBEBOARD_SHARED_DATA ?? path.resolve(repoRoot, '../shared/data');
  const roots = [path.join(repoRoot, 'test/fixtures'), shared];
  const before = snapshot(roots);
  return () => {
    const after = snapshot(roots);
    const changed: string[] = [];
    for (const [p, h] of before) if (after.get(p) !== h) changed.push(`${after.has(p) ? 'changed' : 'removed'}: ${p}`);
    for (const p of after.keys()) if (!before.has(p)) changed.push(`added: ${p}`);
    if (changed.length) {
      // vitest reports a teardown error but keeps its exit code: set the code so the run fails.
      process.exitCode = 1;
      throw new Error(`the tests modified their input files (${changed.length}):\n${changed.slice(0, 20).join('\n')}`);
    }
  };
}
