#!/usr/bin/env node
// npm run bench: every benchmark in bench/, one after the other (they each use both cores), arguments passed through.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BENCHMARKS = ['graph.mjs', 'viewer-server.mjs', 'viewer-client.mjs', 'compare.mjs', 'load.mjs', 'triage.mjs', 'heatmap.mjs', 'match.mjs', 'recolour.mjs', 'save.mjs', 'tb.mjs'].filter((b) => existsSync(path.join(here, b)));
let failed = 0;
for (const b of BENCHMARKS) {
  const r = spawnSync(process.execPath, [path.join(here, b), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
