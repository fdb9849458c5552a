import { describe, expect, it } from 'vitest';
import type { GraphEdge, NodeSummary } from '../../src/core/api/types.js';
import { expand } from '../../src/app/commands/expansion.js';
import { pageLoaded } from '../../src/app/commands/splitTree.js';
import { treeForRoot } from '../../src/app/commands/treeState.js';
import { buildLayoutBatch } from '../../src/app/pane/layoutBatch.js';
import { layoutGroup, layoutGroups } from '../../src/core/layout/groupLayout.js';
import { visibleEdges, visibleNodes } from '../../src/core/layout/scene.js';
import { approximateTextMeasurer } from '../../src/core/layout/textMeasure.js';
import {
  DEFAULT_LAYOUT_PARAMS as P,
  type GroupChild,
  type GroupEdge,
  type GroupInput,
  type GroupLayout,
  type Point,
  type Rect,
} from '../../src/core/layout/types.js';
import { groupProblems } from './layoutInvariants.js';

const leaf = (id: string, width = P.leafWidth): GroupChild => ({ id, shape: 'leaf', width, height: P.leafHeight, expanded: false });
const edge = (from: number, to: number, extra: Partial<GroupEdge> = {}): GroupEdge => ({ from, to, data: 1, control: 0, labels: [], ...extra });
const group = (children: GroupChild[], edges?: GroupEdge[]): GroupInput => ({ id: 'g', titleWidth: 40, children, ...(edges ? { edges } : {}) });

/** Distance from a point to a box's outline or inside (0 when on or in it). */
function distanceToBox(p: Point, r: Rect): number {
  const dx = Math.max(r.x - p.x, 0, p.x - (r.x + r.width));
  const dy = Math.max(r.y - p.y, 0, p.y - (r.y + r.height));
  return Math.hypot(dx, dy);
}

/** Every edge starts on its source's box and ends on its target's; returns what does not. */
function endpointProblems(layout: GroupLayout): string[] {
  const byId = new Map(layout.children.map((c) => [c.id, c]));
  const out: string[] = [];
  for (const e of layout.edges ?? []) {
    const first = e.points[0];
    const last = e.points[e.points.length - 1];
    if (distanceToBox(first, byId.get(e.from)!) > 0.5) out.push(`${e.from}→${e.to} starts off its source`);
    if (distanceToBox(last, byId.get(e.to)!) > 0.5) out.push(`${e.from}→${e.to} ends off its target`);
  }
  return out;
}

/** A transformer-like scope: a chain with residual edges jumping 2–4 ops back, as dataflow inside a block looks. */
function residualChain(n: number): { children: GroupChild[]; edges: GroupEdge[] } {
  const children = Array.from({ length: n }, (_, i) => leaf(`op${i}`, 40 + (i % 7) * 5));
  const edges: GroupEdge[] = [];
  for (let i = 1; i < n; i++) {
    edges.push(edge(i - 1, i));
    if (i % 5 === 0) edges.push(edge(i - 4, i, { labels: ['float32[8,16]'] }));
  }
  return { children, edges };
}

describe.each([
  ['dagre', P],
  ['the linear layered pass', { ...P, edgeDagreMax: 0 }],
])('a group with recorded dataflow, placed by %s', (_name, params) => {
  it('puts every target below its source and draws each edge from box to box', () => {
    const { children, edges } = residualChain(30);
    const layout = layoutGroup(group(children, edges), params);
    expect(layout.edges).toHaveLength(edges.length);
    for (const e of layout.edges!) {
      const a = layout.children.find((c) => c.id === e.from)!;
      const b = layout.children.find((c) => c.id === e.to)!;
      expect(b.y).toBeGreaterThanOrEqual(a.y + a.height);
    }
    expect(endpointProblems(layout)).toEqual([]);
    expect(groupProblems(layout)).toEqual([]);
  });

  it('survives a cycle and a self-loop, keeping finite coordinates and no overlaps', () => {
    const children = [leaf('a'), leaf('b'), leaf('c')];
    const layout = layoutGroup(group(children, [edge(0, 1), edge(1, 2), edge(2, 0), edge(1, 1)]), params);
    const numbers = [layout.width, layout.height, ...layout.children.flatMap((c) => [c.x, c.y]), ...layout.edges!.flatMap((e) => e.points.flatMap((p) => [p.x, p.y]))];
    expect(numbers.every(Number.isFinite)).toBe(true);
    expect(layout.edges!.map((e) => `${e.from}>${e.to}`).sort()).toEqual(['a>b', 'b>c', 'c>a']);
    expect(groupProblems(layout)).toEqual([]);
  });

  it('keeps counts, control and labels of each bundle', () => {
    const layout = layoutGroup(group([leaf('a'), leaf('b')], [edge(0, 1, { data: 3, control: 1, labels: ['int64[2]'] })]), params);
    expect(layout.edges).toEqual([expect.objectContaining({ from: 'a', to: 'b', data: 3, control: 1, labels: ['int64[2]'] })]);
  });
});

describe('large dataflow scopes', () => {
  it('lays out 1,000 ops of one scope with the linear pass: layered, no overlap, edges on their boxes', () => {
    const { children, edges } = residualChain(1000);
    const layout = layoutGroup(group(children, edges), P);
    expect(layout.edges).toHaveLength(edges.length);
    expect(groupProblems(layout)).toEqual([]);
    expect(endpointProblems(layout)).toEqual([]);
    // A chain stays a column: ops whose only input is the op above sit centred under it.
    const [a, b] = layout.children;
    expect(b.x + b.width / 2).toBeCloseTo(a.x + a.width / 2, 6);
  });
});

describe('inferred dataflow over an msprobe group', () => {
  it('leaves every child where execution order put it and routes edges between their boxes', () => {
    const children = [...Array.from({ length: 7 }, (_, i) => leaf(`l${i}`)), { ...leaf('M'), shape: 'module' as const, width: 120 }, leaf('after')];
    const plain = layoutGroup(group(children));
    const edges = [edge(0, 1, { inferred: true }), edge(2, 7, { inferred: true }), edge(0, 8, { inferred: true }), edge(7, 8, { inferred: true })];
    const withEdges = layoutGroup(group(children, edges));
    expect(withEdges.children).toEqual(plain.children);
    expect(withEdges.width).toBe(plain.width);
    expect(withEdges.edges!.map((e) => [e.from, e.to, e.inferred])).toEqual([
      ['l0', 'l1', true],
      ['l2', 'M', true],
      ['l0', 'after', true],
      ['M', 'after', true],
    ]);
    expect(endpointProblems(withEdges)).toEqual([]);
  });

  it('draws nothing for a group without edges, so msprobe layouts are unchanged', () => {
    expect(layoutGroup(group([leaf('a'), leaf('b')])).edges).toBeUndefined();
    expect(layoutGroup(group([leaf('a'), leaf('b')], [])).edges).toBeUndefined();
  });
});

describe('edges through the pane: children answer → tree → layout batch → scene', () => {
  const summary = (id: string, childCount = 0): NodeSummary => ({
    id,
    nodeType: childCount > 0 ? 0 : 1,
    precisionIndex: null,
    overflowLevel: null,
    matchedNodeLink: [],
    childCount,
    microStepId: null,
  });
  const rootEdges: GraphEdge[] = [
    { from: 'x', to: 'scope', data: 2, control: 0, labels: ['float32[4]'] },
    { from: 'scope', to: 'y', data: 1, control: 1, labels: [] },
    { from: 'x', to: 'gone', data: 1, control: 0, labels: [] },
  ];
  const scopeEdges: GraphEdge[] = [{ from: 'scope/a', to: 'scope/b', data: 1, control: 0, labels: [] }];

  it('keeps the edges of a group, drops ends the group does not hold, and draws a closed group’s edges to its box', () => {
    let tree = pageLoaded(treeForRoot('root'), 'root', {
      offset: 0,
      children: [summary('x'), summary('scope', 2), summary('y')],
      total: 3,
      edges: rootEdges,
    });
    expect(tree.edges.get('root')).toEqual(rootEdges);
    const layouts = new Map<string, GroupLayout>();
    const round = () => {
      for (const l of layoutGroups(buildLayoutBatch(tree, layouts, approximateTextMeasurer, P), P)) layouts.set(l.id, l);
      tree = { ...tree, dirty: new Set() };
    };
    round();
    const closed = visibleEdges(layouts, 'root');
    expect(closed.map((e) => `${e.from}>${e.to}`)).toEqual(['x>scope', 'scope>y']);
    const scopeBox = visibleNodes(layouts, 'root').find((n) => n.id === 'scope')!;
    expect(distanceToBox(closed[0].points.at(-1)!, scopeBox)).toBeLessThan(0.5);

    tree = pageLoaded(expand(tree, 'scope'), 'scope', { offset: 0, children: [summary('scope/a'), summary('scope/b')], total: 2, edges: scopeEdges });
    round();
    const open = visibleEdges(layouts, 'root');
    const inner = open.find((e) => e.groupId === 'scope')!;
    expect(inner).toMatchObject({ from: 'scope/a', to: 'scope/b' });
    // Scene coordinates: the inner edge starts on scope/a's drawn box, wherever the scope sits in the root.
    const a = visibleNodes(layouts, 'root').find((n) => n.id === 'scope/a')!;
    expect(distanceToBox(inner.points[0], a)).toBeLessThan(0.5);
    // Culling: a window away from the graph draws no edge.
    expect(visibleEdges(layouts, 'root', { x: -1000, y: -1000, width: 10, height: 10 })).toEqual([]);
  });

  it('shows no edges for a group drawn as pseudo-groups', () => {
    const children = Array.from({ length: 5 }, (_, i) => summary(`c${i}`));
    const tree = pageLoaded(treeForRoot('root'), 'root', { offset: 0, children, total: 5, edges: [{ from: 'c0', to: 'c1', data: 1, control: 0, labels: [] }] }, 2);
    expect(tree.edges.has('root')).toBe(false);
  });
});

describe('the linear layered pass on a model-like scope', () => {
  it('puts each weight just above the op that reads it, not in one wide top row', () => {
    // 200 layers: op_i reads op_{i-1} and its own weight w_i (a source).
    const children: GroupChild[] = [];
    const edges: GroupEdge[] = [];
    for (let i = 0; i < 200; i++) {
      children.push(leaf(`w${i}`), leaf(`op${i}`));
      edges.push(edge(2 * i, 2 * i + 1));
      if (i > 0) edges.push(edge(2 * i - 1, 2 * i + 1));
    }
    const layout = layoutGroup(group(children, edges), { ...P, edgeDagreMax: 0 });
    const byId = new Map(layout.children.map((c) => [c.id, c]));
    for (let i = 1; i < 200; i++) {
      const w = byId.get(`w${i}`)!;
      const op = byId.get(`op${i}`)!;
      const prev = byId.get(`op${i - 1}`)!;
      expect(w.y, `w${i}`).toBe(prev.y);
      expect(op.y).toBeGreaterThan(w.y);
    }
    expect(groupProblems(layout)).toEqual([]);
    expect(endpointProblems(layout)).toEqual([]);
  });
});
