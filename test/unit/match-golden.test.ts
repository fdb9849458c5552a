import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Side } from '../../src/core/api/types.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import {
  OverlayGraph,
  planConfig,
  planMatch,
  planUnmatch,
  type Items,
  type MatchGraph,
  type MatchNode,
  type MatchPlan,
} from '../../src/core/match/index.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Manual match / unmatch against goldens computed by test/fixtures/match/make_goldens.py, a separate Python
 * implementation of reference-viewer.md §4.4 run on real nodes of ../shared/data golden files: every op (order,
 * role, depth, ids, failure code, both links, precision_index and its Python type) and the final state of every node.
 */

interface FixtureNode {
  node_type: number;
  upnode: string | null;
  subnodes: string[];
  input_data: Items;
  output_data: Items;
  matched_node_link: string[];
  precision_index: number | null;
}
interface ExpectedOp {
  kind: string;
  role: string;
  depth: number;
  npu: string;
  bench: string;
  ok: boolean;
  reason?: string;
  npuLink?: string[];
  benchLink?: string[];
  precision?: [number, boolean] | null;
}
type Step = { op: 'match' | 'unmatch'; npu: string; bench: string; children?: boolean } | { op: 'config'; pairs: [string, string][] };
interface Fixture {
  source: string;
  graph: { task: string; npu: Record<string, FixtureNode>; bench: Record<string, FixtureNode> };
  keptMatched: string[];
  cases: Array<{
    title: string;
    task?: string;
    steps: Step[];
    results: Array<{ ops: ExpectedOp[]; unchanged: number }>;
    final: Array<{ side: Side; id: string; matchedNodeLink: string[]; precision: [number, boolean] | null; inputData: Items; outputData: Items }>;
  }>;
}

function load(name: string): Fixture {
  return parsePyJson(readFileSync(path.join(repoRoot, 'test/fixtures/match', name), 'utf8')) as Fixture;
}

function graphOf(f: Fixture): MatchGraph {
  const nodes = { npu: new Map<string, MatchNode>(), bench: new Map<string, MatchNode>() };
  for (const side of ['npu', 'bench'] as const) {
    for (const [id, n] of Object.entries(f.graph[side])) {
      nodes[side].set(id, {
        id,
        nodeType: n.node_type,
        upnode: n.upnode,
        subnodes: n.subnodes,
        inputData: n.input_data,
        outputData: n.output_data,
        matchedNodeLink: n.matched_node_link,
        precisionIndex: n.precision_index,
      });
    }
  }
  return { node: (side, id) => nodes[side].get(id) };
}

/** Equal values and the same key order all the way down (the order is what a writer puts in the file). */
function expectSameItems(actual: Items, expected: Items): void {
  expect(actual).toEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

function run(graph: MatchGraph, task: string, step: Step): MatchPlan {
  if (step.op === 'config') return planConfig(graph, task, step.pairs);
  const plan = step.op === 'match' ? planMatch : planUnmatch;
  return plan(graph, task, step.npu, step.bench, { withChildren: step.children ?? false });
}

function checkOps(plan: MatchPlan, expected: { ops: ExpectedOp[]; unchanged: number }): void {
  expect(plan.ops.map((o) => `${o.kind} ${o.role} ${o.depth} ${o.npu} | ${o.bench} ${o.ok ? 'ok' : o.reason}`)).toEqual(
    expected.ops.map((o) => `${o.kind} ${o.role} ${o.depth} ${o.npu} | ${o.bench} ${o.ok ? 'ok' : o.reason}`),
  );
  expect(plan.unchanged).toBe(expected.unchanged);
  expect(plan.done).toBe(expected.ops.filter((o) => o.ok).length);
  expect(plan.failed).toBe(expected.ops.filter((o) => !o.ok).length);
  plan.ops.forEach((op, i) => {
    const want = expected.ops[i];
    if (!op.ok) return;
    expect(op.npuChange.matchedNodeLink).toEqual(want.npuLink);
    expect(op.benchChange.matchedNodeLink).toEqual(want.benchLink);
    expect(op.benchChange.precisionIndex).toBeUndefined();
    if (want.precision) {
      expect(op.npuChange.precisionIndex).toBe(want.precision[0]);
      expect(op.npuChange.precisionIsInt).toBe(want.precision[1]);
    } else {
      expect(op.npuChange.precisionIndex).toBeNull();
    }
  });
}

const FIXTURES = [
  'graph-resnet18-summary.json',
  'graph-resnet18-renamed.json',
  'graph-resnet18-md5.json',
  'graph-lm-ms-vs-pt.json',
  'graph-dist2-float-backward.json',
];

for (const name of FIXTURES) {
  const fixture = load(name);
  describe(`manual matching on ${fixture.source}`, () => {
    for (const c of fixture.cases) {
      it(c.title, () => {
        const base = graphOf(fixture);
        const overlay = new OverlayGraph(base);
        const task = c.task ?? fixture.graph.task;
        c.steps.forEach((step, i) => {
          const plan = run(overlay, task, step);
          checkOps(plan, c.results[i]);
          overlay.apply(plan);
        });
        const changed = new Map(c.final.map((f) => [`${f.side} ${f.id}`, f]));
        for (const side of ['npu', 'bench'] as const) {
          for (const id of Object.keys(fixture.graph[side])) {
            const now = overlay.node(side, id)!;
            const want = changed.get(`${side} ${id}`);
            const before = base.node(side, id)!;
            if (!want) {
              // untouched, or back to exactly what the file holds
              expect(now.matchedNodeLink).toEqual(before.matchedNodeLink);
              expect(now.precisionIndex).toBe(before.precisionIndex);
              expectSameItems(now.inputData, before.inputData);
              expectSameItems(now.outputData, before.outputData);
              continue;
            }
            expect(now.matchedNodeLink).toEqual(want.matchedNodeLink);
            expect(now.precisionIndex).toBe(want.precision ? want.precision[0] : null);
            expectSameItems(now.inputData, want.inputData);
            expectSameItems(now.outputData, want.outputData);
          }
        }
        if (c.title.includes('restores')) {
          // only msprobe's own matches inside the subtree are gone (the original unmatches every matched child)
          expect([...changed.values()].map((f) => f.id).filter((id) => !fixture.keptMatched.includes(id))).toEqual([]);
        }
        // the base graph is never modified
        expect(JSON.stringify(graphOf(fixture).node('npu', Object.keys(fixture.graph.npu)[1]))).toBe(
          JSON.stringify(base.node('npu', Object.keys(fixture.graph.npu)[1])),
        );
      });
    }
  });
}

describe('OverlayGraph', () => {
  const fixture = load('graph-resnet18-summary.json');
  const block = 'Module.layer1.0.BasicBlock.forward.0';

  it('lists each changed node once with its accumulated change, for writers', () => {
    const overlay = new OverlayGraph(graphOf(fixture));
    overlay.apply(planMatch(overlay, 'summary', block, block, { withChildren: true }));
    const changes = [...overlay.changes()];
    expect(changes).toHaveLength(40);
    const npuBlock = changes.find((c) => c.side === 'npu' && c.id === block)!;
    expect(npuBlock.matchedNodeLink).toEqual(['DefaultModel', 'Module.layer1.Sequential.forward.0', block]);
    expect(npuBlock.inputData).toBeDefined();
    overlay.apply(planUnmatch(overlay, 'summary', block, block));
    const after = [...overlay.changes()].find((c) => c.side === 'npu' && c.id === block)!;
    expect(after.matchedNodeLink).toEqual([]);
    expect(after.precisionIndex).toBeNull();
    expect(JSON.stringify(after.inputData)).toBe(JSON.stringify(fixture.graph.npu[block].input_data));
  });

  it('plans see their own earlier steps but leave the graph they read alone', () => {
    const overlay = new OverlayGraph(graphOf(fixture));
    const plan = planMatch(overlay, 'summary', block, block, { withChildren: true });
    expect(plan.done).toBe(20);
    expect(overlay.node('npu', block)!.matchedNodeLink).toEqual([]);
    // planned again on the untouched overlay: the same answer
    expect(planMatch(overlay, 'summary', block, block, { withChildren: true }).ops).toEqual(plan.ops);
  });
});
