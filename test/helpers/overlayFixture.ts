import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ADD_MATCH_KEYS } from '../../src/core/match/index.js';
import { repoRoot } from './shared.js';

/**
 * A compare `.vis` where msprobe left whole modules unmatched, for issue 15's match tests: test/fixtures/e2e/compare/
 * synth_2layer.vis (every node matched, real statistics) with the subtrees under `roots` turned into what msprobe
 * writes for unmatched nodes — empty matched_node_link, no precision_index, items without the comparison columns —
 * on both sides. The original file stays the oracle: matching the pairs again must give back its values.
 */
export const SYNTH_FILE = path.join(repoRoot, 'test/fixtures/e2e/compare/synth_2layer.vis');
export const F16_FORWARD = 'Module.module.Float16Module.forward.0';
export const F16_BACKWARD = 'Module.module.Float16Module.backward.0';

const COMPARE_KEYS = ['Max diff', 'Min diff', 'Mean diff', 'L2norm diff', ...ADD_MATCH_KEYS];

interface VisNode {
  subnodes?: string[];
  matched_node_link?: string[];
  data?: Record<string, unknown>;
  input_data?: Record<string, Record<string, unknown>>;
  output_data?: Record<string, Record<string, unknown>>;
}
type Vis = Record<'NPU' | 'Bench', { root: string; node: Record<string, VisNode> }> & Record<string, unknown>;

export const readSynth = (): Vis => JSON.parse(readFileSync(SYNTH_FILE, 'utf8')) as Vis;

/** `id` and every node below it on one side, in pre-order. */
export function subtree(vis: Vis, side: 'NPU' | 'Bench', id: string): string[] {
  const out: string[] = [];
  const walk = (n: string) => {
    out.push(n);
    for (const c of vis[side].node[n]?.subnodes ?? []) walk(c);
  };
  walk(id);
  return out;
}

/** Writes `{dir}/{name}.vis`: synth_2layer with the subtrees under `roots` unmatched on both sides. */
export function writeUnmatchedSynth(dir: string, name: string, roots: readonly string[]): string {
  const vis = readSynth();
  for (const side of ['NPU', 'Bench'] as const) {
    for (const id of roots.flatMap((r) => subtree(vis, side, r))) {
      const node = vis[side].node[id];
      node.matched_node_link = [];
      if (node.data) delete node.data.precision_index;
      for (const items of [node.input_data, node.output_data]) {
        for (const item of Object.values(items ?? {})) for (const key of COMPARE_KEYS) delete item[key];
      }
    }
  }
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.vis`);
  writeFileSync(file, JSON.stringify(vis));
  return file;
}
