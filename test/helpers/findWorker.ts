import { build } from 'esbuild';
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './shared.js';

/**
 * The find worker bundled the way scripts/build-server.mjs bundles it, into `dir` (vitest cannot start a worker from
 * TypeScript sources). Packages stay external as in the build, so `dir` gets a link to the repository's node_modules.
 */
export async function bundleFindWorker(dir: string): Promise<string> {
  const out = path.join(dir, 'findWorker.js');
  await build({
    entryPoints: [path.join(repoRoot, 'server/store/findWorker.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return out;
}
