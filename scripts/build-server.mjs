// Bundles the Node side (CLI, server, worker-thread entry points) into dist/server with esbuild.
// npm packages stay external (they are installed); only our own TypeScript is bundled.
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const entryPoints = [
  'server/cli/main.ts',
  'server/workers/compareWorker.ts',
  // Found at run time next to the bundle: dist/server/store/visJsonIndex/indexWorker.js (outbase is server/).
  'server/store/visJsonIndex/indexWorker.ts',
  // Searches and filters off the event loop: dist/server/store/findWorker.js (findPool.ts).
  'server/store/findWorker.ts',
  // TensorBoard / ONNX graphs decoded off the event loop: dist/server/store/tbGraph/tbWorker.js (tbCache.ts).
  'server/store/tbGraph/tbWorker.ts',
  'server/compare/compareTableWorker.ts',
  'server/graph/dbWriterWorker.ts',
  // Saves of matched files off the event loop: dist/server/overlay/saveWorker.js (server/overlay/saveJobs.ts).
  'server/overlay/saveWorker.ts',
].filter((p) => existsSync(p));
// `import text from './x.proto?raw'` as vite does it: the file's text as the default export (src/core/formats/tb).
const rawText = {
  name: 'raw-text',
  setup(b) {
    b.onResolve({ filter: /\?raw$/ }, (args) => ({
      path: path.resolve(args.resolveDir, args.path.slice(0, -'?raw'.length)),
      namespace: 'raw-text',
    }));
    b.onLoad({ filter: /.*/, namespace: 'raw-text' }, (args) => ({
      contents: readFileSync(args.path, 'utf8'),
      loader: 'text',
      watchFiles: [args.path],
    }));
  },
};
// Chunk names change with their content: old ones would pile up.
rmSync('dist/server', { recursive: true, force: true });
await build({
  entryPoints,
  outdir: 'dist/server',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
  outbase: 'server',
  // Shared code in chunks, each command's modules loaded by its action (dynamic import): a command starts
  // without reading the others' code and packages.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [rawText],
});
