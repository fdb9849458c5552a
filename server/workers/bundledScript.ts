import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A worker-thread entry of the server bundle: `entry` is its path under dist/server (esbuild's outbase), e.g.
 * `graph/dbWriterWorker.js`, looked for from the module at `fromUrl`, whose file (an entry or a shared chunk) sits
 * up to two levels below dist/server. Null when running from the TypeScript sources, where no such .js exists: the
 * callers then do the work in the calling thread.
 */
export function bundledScript(entry: string, fromUrl: string): string | null {
  let dir: string;
  try {
    dir = path.dirname(fileURLToPath(fromUrl));
  } catch {
    return null; // not a file: URL
  }
  for (let up = 0; up < 3; up++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, entry);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}
