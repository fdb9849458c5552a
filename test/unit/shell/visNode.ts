import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { NodeDetail, Side } from '../../../src/core/api/types.js';
import { repoRoot } from '../../helpers/shared.js';

/**
 * Reads a node record straight from a committed `.vis` fixture and shapes it like `/api/graph/node`, so the panel
 * logic is tested on real msprobe items without depending on the server's store.
 */
type VisNode = Record<string, unknown> & { id: string };
type VisSide = { root: string; node: Record<string, VisNode> };

const cache = new Map<string, Record<string, unknown>>();

export function loadVis(relative: string): Record<string, unknown> {
  let doc = cache.get(relative);
  if (!doc) {
    doc = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/e2e', relative), 'utf8')) as Record<string, unknown>;
    cache.set(relative, doc);
  }
  return doc;
}

export function visNode(relative: string, side: Side | 'build', id: string): NodeDetail {
  const doc = loadVis(relative);
  const graph = (side === 'build' ? doc : doc[side === 'npu' ? 'NPU' : 'Bench']) as VisSide;
  const raw = graph.node[id];
  if (!raw) throw new Error(`${relative}: no node ${id} on ${side}`);
  const data = (raw.data ?? {}) as Record<string, unknown>;
  return {
    id,
    side: side === 'build' ? 'npu' : side,
    nodeType: raw.node_type as number,
    precisionIndex: typeof data.precision_index === 'number' ? data.precision_index : null,
    overflowLevel: null,
    matchedNodeLink: (raw.matched_node_link as string[]) ?? [],
    childCount: ((raw.subnodes as string[]) ?? []).length,
    microStepId: null,
    upnode: raw.upnode === 'None' ? null : (raw.upnode as string),
    path: [],
    inputData: (raw.input_data ?? {}) as NodeDetail['inputData'],
    outputData: (raw.output_data ?? {}) as NodeDetail['outputData'],
    stackInfo: (raw.stack_info as string[]) ?? [],
    suggestions: (raw.suggestions ?? {}) as Record<string, unknown>,
    parallelMergeInfo: (raw.parallel_merge_info as string[]) ?? [],
    matchedDistributed: null,
  };
}
