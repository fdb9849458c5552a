import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { repoRoot } from './shared.js';

/**
 * Worker threads bundled into a test's directory the way scripts/build-server.mjs bundles them: vitest cannot start a
 * worker from TypeScript sources, and tests run the real thread.
 */
// `import text from './x.proto?raw'` as vite and scripts/build-server.mjs load it: the file's text.
const rawText: Plugin = {
  name: 'raw-text',
  setup(b) {
    b.onResolve({ filter: /\?raw$/ }, (args) => ({ path: path.resolve(args.resolveDir, args.path.slice(0, -'?raw'.length)), namespace: 'raw-text' }));
    b.onLoad({ filter: /.*/, namespace: 'raw-text' }, (args) => ({ contents: readFileSync(args.path, 'utf8'), loader: 'text' }));
  },
};

async function bundleWorker(entry: string, dir: string, packages: 'external' | 'bundled'): Promise<string> {
  const out = path.join(dir, `${path.basename(entry, '.ts')}.js`);
  await build({
    entryPoints: [path.join(repoRoot, entry)],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    ...(packages === 'external'
      ? { packages: 'external' as const }
      : { banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" } }),
    logLevel: 'warning',
    plugins: [rawText],
  });
  return out;
}

/** The `.vis` index worker (it imports no packages). */
export const bundleIndexWorker = (dir: string) => bundleWorker('server/store/visJsonIndex/indexWorker.ts', dir, 'external');

/** The search/filter worker; its packages (better-sqlite3) resolve through a link to the repository's node_modules. */
export async function bundleFindWorker(dir: string): Promise<string> {
  const out = await bundleWorker('server/store/findWorker.ts', dir, 'external');
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return out;
}

/** The compare command's reading thread, packages bundled in (a temporary directory has no node_modules). */
export const bundleCompareWorker = (dir: string) => bundleWorker('server/compare/compareTableWorker.ts', dir, 'bundled');

/** The TensorBoard / ONNX decoding thread (server/store/tbGraph/tbWorker.ts), protobufjs bundled in. */
export const bundleTbWorker = (dir: string) => bundleWorker('server/store/tbGraph/tbWorker.ts', dir, 'bundled');
