// Bundles the Node side (CLI, server, worker-thread entry points) into dist/server with esbuild.
// npm packages stay external (they are installed); only our own TypeScript is bundled.
import { build } from 'esbuild';
import { existsSync, rmSync } from 'node:fs';

const entryPoints = [
  'server/cli/main.ts',
  'server/workers/compareWorker.ts',
  // Found at run time next to the bundle: dist/server/store/visJsonIndex/indexWorker.js (outbase is server/).
  'server/store/visJsonIndex/indexWorker.ts',
  // Searches and filters off the event loop: dist/server/store/findWorker.js (findPool.ts).
  'server/store/findWorker.ts',
  'server/compare/compareTableWorker.ts',
  'server/graph/dbWriterWorker.ts',
].filter((p) => existsSync(p));
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
});
