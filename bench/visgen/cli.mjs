#!/usr/bin/env node
// node bench/visgen/cli.mjs --nodes 100000 --out big.vis [--format vis|db] [--build] [--wide [N]] [--micro 2]
//   [--steps 0,1] [--ranks 0,1] [--seed 1]
// Writes one large msprobe-shaped `.vis` or `.vis.db` (see index.mjs) and prints what it wrote as JSON.
import { parseArgs } from 'node:util';
import { generateVis } from './index.mjs';

const { values: a } = parseArgs({
  options: {
    nodes: { type: 'string' },
    out: { type: 'string' },
    format: { type: 'string' },
    build: { type: 'boolean', default: false },
    wide: { type: 'string' },
    micro: { type: 'string', default: '1' },
    steps: { type: 'string' },
    ranks: { type: 'string' },
    seed: { type: 'string', default: '1' },
  },
});
if (!a.nodes || !a.out) {
  console.error('usage: cli.mjs --nodes N --out FILE [--format vis|db] [--build] [--wide [N]] [--micro M] [--steps 0,1] [--ranks 0,1]');
  process.exit(2);
}
const list = (/** @type {string | undefined} */ s) => (s ? s.split(',').map(Number) : undefined);
const result = await generateVis({
  nodes: Number(a.nodes),
  out: a.out,
  format: a.format === 'db' || a.format === 'vis' ? a.format : undefined,
  graphType: a.build ? 'build' : 'compare',
  wide: a.wide === undefined ? false : a.wide === '' || a.wide === 'true' ? true : Number(a.wide),
  microSteps: Number(a.micro),
  steps: list(a.steps),
  ranks: list(a.ranks),
  seed: Number(a.seed),
  log: (m) => console.error(m),
});
console.log(JSON.stringify(result, null, 2));
