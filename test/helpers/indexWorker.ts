import { build } from 'esbuild';
import path from 'node:path';
import { repoRoot } from './shared.js';

/**
 * The `.vis` index worker bundled the way scripts/build-server.mjs bundles it, into `dir`: tests run the real worker
 * thread (vitest cannot start a worker from TypeScript sources).
 */
export async function bundleIndexWorker(dir: string): Promise<string> {
  const out = path.join(dir, 'indexWorker.js');
  await build({
    entryPoints: [path.join(repoRoot, 'server/store/visJsonIndex/indexWorker.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return out;
}
