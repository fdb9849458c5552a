import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { NodeSummary } from '../../src/core/api/types.js';
import { childrenLoaded, expand } from '../../src/app/commands/expansion.js';
import { treeForRoot, type TreeState } from '../../src/app/commands/treeState.js';
import { buildLayoutBatch } from '../../src/app/pane/layoutBatch.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { layoutGroups } from '../../src/core/layout/groupLayout.js';
import { visibleNodes } from '../../src/core/layout/scene.js';
import { approximateTextMeasurer } from '../../src/core/layout/textMeasure.js';
import { DEFAULT_LAYOUT_PARAMS as P, type GroupLayout } from '../../src/core/layout/types.js';
import { describeShared, sharedDataDir } from '../helpers/shared.js';
import { sceneProblems } from './layoutInvariants.js';

interface VisGraph {
  root: string;
  node: Record<string, { node_type?: number; subnodes?: string[]; matched_node_link?: string[]; data?: { precision_index?: number } }>;
}

function visFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return visFiles(full);
    return name.endsWith('.vis') ? [full] : [];
  });
}

/** Each graph of a .vis file: the top level for builds, NPU and Bench for compares (msprobe-format.md §4.3). */
function graphsOf(file: string): [string, VisGraph][] {
  const doc = parsePyJson(readFileSync(file, 'utf8'), { file }) as Record<string, unknown>;
  if (doc.NPU) return [['NPU', doc.NPU as VisGraph], ['Bench', doc.Bench as VisGraph]];
  return [['build', doc as unknown as VisGraph]];
}

/** Children lists as the server sends them: sub-nodes in file order, only those present in the file. */
function childrenOf(graph: VisGraph, id: string): NodeSummary[] {
  return (graph.node[id]?.subnodes ?? [])
    .filter((child) => graph.node[child])
    .map((child) => {
      const n = graph.node[child];
      return {
        id: child,
        nodeType: n.node_type ?? 0,
        precisionIndex: n.data?.precision_index ?? null,
        overflowLevel: null,
        matchedNodeLink: n.matched_node_link ?? [],
        childCount: (n.subnodes ?? []).filter((s) => graph.node[s]).length,
        microStepId: null,
      };
    });
}

/** Opens every group, level by level, running one layout round per level the way the pane's scheduler does. */
function expandAll(graph: VisGraph): { tree: TreeState; layouts: Map<string, GroupLayout>; reachable: number } {
  let tree = childrenLoaded(treeForRoot(graph.root), graph.root, childrenOf(graph, graph.root));
  const layouts = new Map<string, GroupLayout>();
  let reachable = 1;
  let frontier = [graph.root];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const child of tree.children.get(id) ?? []) {
        reachable++;
        const kids = childrenOf(graph, child);
        if (kids.length === 0) continue;
        tree = childrenLoaded(expand(tree, child), child, kids);
        next.push(child);
      }
    }
    for (const layout of layoutGroups(buildLayoutBatch(tree, layouts, approximateTextMeasurer, P), P)) layouts.set(layout.id, layout);
    tree = { ...tree, dirty: new Set() };
    frontier = next;
  }
  return { tree, layouts, reachable };
}

describeShared('layout of every shared .vis file, fully expanded', () => {
  const dir = sharedDataDir();
  const files = dir ? [...visFiles(path.join(dir, 'vis')), ...visFiles(path.join(dir, 'golden'))].sort() : [];

  it('finds the files', () => expect(files.length).toBeGreaterThan(20));

  for (const file of files) {
    it(path.relative(dir!, file), () => {
      for (const [side, graph] of graphsOf(file)) {
        const { tree, layouts, reachable } = expandAll(graph);
        expect(sceneProblems(layouts, graph.root), `${side}`).toEqual([]);
        // Everything reachable from the root is drawn exactly once.
        const drawn = visibleNodes(layouts, graph.root);
        expect(drawn.length, `${side} drawn`).toBe(reachable);
        expect(new Set(drawn.map((n) => n.id)).size).toBe(drawn.length);
        expect(layouts.size).toBe(tree.expanded.size);
      }
    });
  }
});
