import path from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from './shared.js';

/**
 * The compare command's reading thread bundled into `outDir` (as `npm run build:server` ships it), for tests that run
 * worker-thread reading from the TypeScript sources. Packages are bundled too: a temporary directory has no
 * node_modules to resolve them from.
 */
export async function bundleCompareWorker(outDir: string): Promise<string> {
  await build({
    entryPoints: [path.join(repoRoot, 'server/compare/compareTableWorker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    outdir: outDir,
    logLevel: 'warning',
  });
  return path.join(outDir, 'compareTableWorker.js');
}
