import { expect } from 'vitest';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import type { Side } from '../../src/core/api/types.js';
import type { GraphStore } from '../../server/store/graphStore.js';
import { UNREACHABLE_GROUP_ID } from '../../server/store/unreachableGroup.js';

/**
 * Checks a GraphStore against the raw file, field by field: expected values are read straight from the parsed
 * text with the simplest possible code, so a wrong normalisation in the store shows up as a diff.
 */
type Raw = Record<string, any>;

export function rawSides(text: string): { graphType: 'build' | 'compare'; top: Raw; sides: Partial<Record<Side, Raw>> } {
  const top = parsePyJson(text) as Raw;
  if ('NPU' in top) return { graphType: 'compare', top, sides: { npu: top.NPU, bench: top.Bench } };
  return { graphType: 'build', top, sides: { npu: top } };
}

const stripPrefix = (s: string) => s.replace(/^[NB]___/, '');

/** Ids the root reaches through `subnodes`. */
function reachable(g: Raw): Set<string> {
  const seen = new Set<string>([g.root]);
  const stack = [g.root as string];
  while (stack.length > 0) {
    for (const c of existingChildren(g, g.node[stack.pop()!])) {
      if (!seen.has(c)) {
        seen.add(c);
        stack.push(c);
      }
    }
  }
  return seen;
}
const existingChildren = (g: Raw, n: Raw): string[] =>
  [...new Set<string>((n.subnodes ?? []).filter((c: unknown) => typeof c === 'string' && c in g.node))];

/** Bare legacy item values are shown as `{value}` rows. */
const items = (v: Raw | undefined) =>
  Object.fromEntries(
    Object.entries(v ?? {})
      .filter(([, item]) => item !== null)
      .map(([k, item]) => [k, typeof item === 'object' && !Array.isArray(item) ? item : { value: item }]),
  );

export function expectStoreMatchesFile(store: GraphStore, text: string): { nodes: number } {
  const raw = rawSides(text);
  const meta = store.meta();
  expect(meta.graphType).toBe(raw.graphType);
  expect(meta.microSteps).toBe(Number(raw.top.MicroSteps ?? 1));
  expect(meta.overflowCheck).toBe(raw.top.OverflowCheck ?? true);
  let nodes = 0;
  for (const side of ['npu', 'bench'] as const) {
    const g = raw.sides[side];
    if (!g) {
      expect(meta.roots[side]).toBeUndefined();
      continue;
    }
    expect(meta.roots[side]).toBe(g.root);
    expect(meta.nodeCounts[side]).toBe(Object.keys(g.node).length);

    // Nodes the root does not reach are listed in one synthetic group, the root's last child (issue 14 #11).
    const reached = reachable(g);
    const orphans = Object.keys(g.node).filter((id) => !reached.has(id));
    const rootChildren = store.children({ side })!;
    expect(rootChildren.node).toBe(g.root);
    expect(rootChildren.children.map((c) => c.id)).toEqual([
      ...existingChildren(g, g.node[g.root]),
      ...(orphans.length > 0 ? [UNREACHABLE_GROUP_ID] : []),
    ]);
    const tops = new Set(orphans.length > 0 ? store.children({ side, nodeId: UNREACHABLE_GROUP_ID })!.children.map((c) => c.id) : []);
    if (orphans.length > 0) {
      const group = rootChildren.children[rootChildren.children.length - 1];
      expect(group.synthetic).toBe('unreachable');
      expect(store.children({ side, nodeId: group.id })!.total).toBe(group.childCount);
      expect(store.node({ side, nodeId: group.id })!.path).toEqual([g.root]);
    }

    for (const [id, n] of Object.entries<Raw>(g.node)) {
      nodes++;
      const d = store.node({ side, nodeId: id })!;
      expect(d, id).toBeDefined();
      expect(d.id).toBe(id);
      expect(d.side).toBe(side);
      expect(d.nodeType).toBe(Number(n.node_type));
      expect(d.inputData).toEqual(items(n.input_data));
      expect(d.outputData).toEqual(items(n.output_data));
      expect(d.stackInfo).toEqual(n.stack_info ?? []);
      expect(d.suggestions).toEqual(n.suggestions ?? {});
      expect(d.parallelMergeInfo).toEqual(n.parallel_merge_info ?? []);
      expect(d.matchedNodeLink).toEqual((n.matched_node_link ?? []).map(stripPrefix));
      const pi = n.data?.precision_index;
      expect(d.precisionIndex).toBe(typeof pi === 'number' && Number.isFinite(pi) ? pi : null);
      expect(d.overflowLevel).toBe(n.data?.overflow_level ?? null);
      expect(d.microStepId).toBe(n.micro_step_id === undefined ? null : Number(n.micro_step_id));
      const kids = existingChildren(g, n);
      expect(d.childCount).toBe(kids.length);
      const withGroup = id === g.root && orphans.length > 0 ? [UNREACHABLE_GROUP_ID] : [];
      expect(store.children({ side, nodeId: id })!.children.map((c) => c.id)).toEqual([...kids, ...withGroup]);
      // The path is a real chain: root first, each element lists the next as a child, the last lists the node.
      if (id === g.root) expect(d.path).toEqual([]);
      else {
        // An orphan's path runs root → group → a top the group lists → … (a real chain from there on).
        const inGroup = !reached.has(id);
        expect(d.path[0]).toBe(g.root);
        if (inGroup) {
          expect(d.path[1]).toBe(UNREACHABLE_GROUP_ID);
          const top = d.path[2] ?? id;
          expect(tops.has(top), top).toBe(true);
        }
        const chain = [...d.path.slice(inGroup ? 2 : 0), id];
        for (let i = 0; i + 1 < chain.length; i++) expect(g.node[chain[i]].subnodes).toContain(chain[i + 1]);
        expect(d.upnode).toBe(d.path[d.path.length - 1]);
      }
    }
  }
  return { nodes };
}
