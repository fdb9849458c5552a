// Large `.vis` / `.vis.db` files for the viewer benchmarks (issue 4): msprobe E2 JSON with indent=4, or the v2
// SQLite schema, deep and wide, compare (NPU + Bench) or build. Deterministic for a seed. Types: index.d.mts.
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { buildTree } from './tree.mjs';
import { writeDbFile } from './writeDb.mjs';
import { writeVisFile } from './writeVis.mjs';

/**
 * @param {import('./index.d.mts').VisGenOptions} options
 * @returns {Promise<import('./index.d.mts').VisGenResult>}
 */
export async function generateVis(options) {
  const started = performance.now();
  const out = path.resolve(options.out);
  const format = options.format ?? (out.endsWith('.vis.db') ? 'db' : 'vis');
  const compare = (options.graphType ?? 'compare') === 'compare';
  const seed = options.seed ?? 1;
  const microSteps = Math.max(1, options.microSteps ?? 1);
  const steps = options.steps ?? [0];
  const ranks = options.ranks ?? [0];
  const log = options.log ?? (() => {});
  mkdirSync(path.dirname(out), { recursive: true });

  const { tree, wideModules, thousandModule, deepest } = buildTree({ nodes: options.nodes, wide: options.wide });
  // Root children get micro steps in contiguous blocks, as consecutive forward/backward passes would.
  const rootChildren = tree.children(0);
  const microOfChild = new Map(rootChildren.map((c, k) => [c, Math.floor((k * microSteps) / rootChildren.length)]));
  const microOf = (/** @type {number} */ node) => microOfChild.get(node) ?? null;
  log(`visgen: ${tree.size} nodes per side → ${out}`);

  const common = { compare, seed, microSteps, microOf };
  if (format === 'db') writeDbFile(out, tree, { ...common, steps, ranks });
  else writeVisFile(out, tree, common);

  const named = [...wideModules, ...(thousandModule >= 0 ? [thousandModule] : []), deepest];
  return {
    out,
    format,
    bytes: statSync(out).size,
    nodesPerSide: tree.size,
    graphs: (compare ? 2 : 1) * (format === 'db' ? steps.length * ranks.length : 1),
    rootId: tree.ids[0],
    wideModules: wideModules.map((i) => tree.ids[i]),
    thousandModule: thousandModule >= 0 ? tree.ids[thousandModule] : null,
    deepest: tree.ids[deepest],
    paths: Object.fromEntries(named.map((i) => [tree.ids[i], tree.pathOf(i)])),
    seconds: (performance.now() - started) / 1000,
  };
}
