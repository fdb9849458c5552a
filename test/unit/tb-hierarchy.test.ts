import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeGraphDef, graphDefToGraph, parseGraphDefText } from '../../src/core/formats/tb/graphDef.js';
import { tbType } from '../../src/core/formats/tb/protos.js';
import { tbChildren, tbNodeDetail, tbNodeSummary } from '../../src/core/tbgraph/apiView.js';
import {
  buildHierarchy,
  ROOT_ID,
  visibleEdges,
  type TbHierarchy,
  type TbMetaEdge,
} from '../../src/core/tbgraph/hierarchy.js';
import type { TbGraph, TbOp } from '../../src/core/tbgraph/opGraph.js';
import { packHierarchy, packOpDetails, TbView } from '../../src/core/tbgraph/packed.js';
import { repoRoot } from '../helpers/shared.js';

const fixtureText = (name: string) => readFileSync(path.join(repoRoot, 'test/fixtures/tb', name), 'utf8');

/** A graph from `name: op <- inputs` lines; inputs `x`, `x:1`, `^x`. */
function graph(spec: Array<[name: string, op: string, inputs?: string[]]>): TbGraph {
  return graphDefToGraph({ node: spec.map(([name, op, input]) => ({ name, op, input: input ?? [] })) });
}

const children = (h: TbHierarchy, id: string) => h.nodes.get(id)!.children;
const view = (h: TbHierarchy) => new TbView(packHierarchy(h), packOpDetails(h.graph));
const edgeList = (edges: TbMetaEdge[] | undefined) =>
  (edges ?? []).map((e) => `${e.from}->${e.to} d${e.data} c${e.control}`).sort();

describe('scope hierarchy', () => {
  it('nests by name scope and moves an op whose name is also a scope into it (TensorBoard strict rule)', () => {
    const h = buildHierarchy(
      graph([
        ['a/b', 'MatMul'],
        ['a/b/c', 'Const'],
        ['a/d', 'Relu', ['a/b']],
        ['e', 'Identity', ['a/d']],
      ]),
    );
    expect(children(h, ROOT_ID)).toEqual(['a', 'e']);
    expect(children(h, 'a')).toEqual(['a/b', 'a/d']);
    expect(children(h, 'a/b')).toEqual(['a/b/(b)', 'a/b/c']);
    expect(h.nodes.get('a/b/(b)')).toMatchObject({ kind: 'op', label: '(b)', op: 0 });
    expect(h.nodes.get('a')).toMatchObject({ kind: 'scope', opCount: 3, depth: 1 });
    expect(h.opIds).toEqual(['a/b/(b)', 'a/b/c', 'a/d', 'e']);
  });
});

describe('duplicate node names (caffe2 in-place ops)', () => {
  it('keeps both nodes and links each consumer to the latest definition before it', () => {
    const g = graph([
      ['data', 'Placeholder'],
      ['conv1', 'Conv', ['data']],
      ['conv1', 'Relu', ['conv1']],
      ['pool', 'MaxPool', ['conv1']],
    ]);
    expect(g.ops.map((o) => o.id)).toEqual(['data', 'conv1', 'conv1__1', 'pool']);
    expect(g.ops.map((o) => o.inputs.map((i) => i.source))).toEqual([[], [0], [1], [2]]);
    const h = buildHierarchy(g);
    expect(children(h, ROOT_ID)).toEqual(['data', 'conv1', 'conv1__1', 'pool']);
    expect(edgeList(h.edges.get(ROOT_ID))).toEqual(['conv1->conv1__1 d1 c0', 'conv1__1->pool d1 c0', 'data->conv1 d1 c0']);
  });
});

describe('series grouping', () => {
  it('collapses ≥ 5 same-op siblings named name, name_1 … into name[0-N], not 4, split at gaps', () => {
    const spec: Array<[string, string, string[]?]> = [];
    spec.push(['s/add', 'Add']);
    for (let i = 1; i <= 5; i++) spec.push([`s/add_${i}`, 'Add']);
    for (let i = 1; i <= 4; i++) spec.push([`s/mul_${i}`, 'Mul']); // only 4: stays flat
    for (const i of [1, 2, 3, 4, 5, 7, 8]) spec.push([`s/relu_${i}`, 'Relu']); // 1-5 a series, 7-8 not
    spec.push(['s/add_6', 'Sub']); // another op: not in the Add series
    spec.push(['s/conv2d', 'Conv2D']); // digits in the prefix: the bare name still starts the series
    for (let i = 1; i <= 4; i++) spec.push([`s/conv2d_${i}`, 'Conv2D']);
    const h = buildHierarchy(graph(spec));
    const s = children(h, 's');
    expect(s).toContain('s/add[0-5]');
    expect(children(h, 's/add[0-5]')).toEqual(['s/add', 's/add_1', 's/add_2', 's/add_3', 's/add_4', 's/add_5']);
    expect(h.nodes.get('s/add[0-5]')).toMatchObject({ kind: 'series', label: 'add[0-5]', opCount: 6, parent: 's' });
    expect(s.filter((c) => c.startsWith('s/mul'))).toHaveLength(4);
    expect(children(h, 's/relu[1-5]')).toHaveLength(5);
    expect(s).toContain('s/relu_7');
    expect(s).toContain('s/add_6');
    expect(children(h, 's/conv2d[0-4]')).toEqual(['s/conv2d', 's/conv2d_1', 's/conv2d_2', 's/conv2d_3', 's/conv2d_4']);
    expect(h.nodes.get('s/add_3')!.parent).toBe('s/add[0-5]');
    expect(h.nodes.get('s/add_3')!.depth).toBe(3);
  });

  it('folds numbered scopes (layers.0 …, Linear[0] …) into one series', () => {
    const spec: Array<[string, string, string[]?]> = [];
    for (let i = 0; i < 6; i++) spec.push([`m/layers.${i}/fc`, 'MatMul', i ? [`m/layers.${i - 1}/fc`] : []]);
    for (let i = 0; i < 5; i++) spec.push([`Net/Linear[${i}]/x`, 'Gemm']);
    const h = buildHierarchy(graph(spec));
    expect(children(h, 'm')).toEqual(['m/layers[0-5]']);
    expect(children(h, 'Net')).toEqual(['Net/Linear[0-4]']);
    // The chain's edges run between the layer scopes inside the series.
    expect(edgeList(h.edges.get('m/layers[0-5]'))).toHaveLength(5);
  });
});

describe('metaedges', () => {
  // Hand-checked: x/p1, x/p2 feed y/q twice (one data edge each, plus a control edge), y/q feeds z; x/p1 -> x/p2.
  const g = graph([
    ['x/p1', 'Const'],
    ['x/p2', 'Relu', ['x/p1']],
    ['y/q', 'Add', ['x/p1', 'x/p2:0', '^x/p1']],
    ['y/r', 'Neg', ['y/q']],
    ['z', 'Identity', ['y/r:0', 'y/q']],
  ]);
  const h = buildHierarchy(g);

  it('lifts every edge to the lowest common group and bundles parallel ones with counts', () => {
    expect(edgeList(h.edges.get(ROOT_ID))).toEqual(['x->y d2 c1', 'y->z d2 c0']);
    expect(edgeList(h.edges.get('x'))).toEqual(['x/p1->x/p2 d1 c0']);
    expect(edgeList(h.edges.get('y'))).toEqual(['y/q->y/r d1 c0']);
    const total = [...h.edges.values()].flat().reduce((a, e) => a + e.data + e.control, 0);
    expect(total).toBe(g.ops.reduce((a, o) => a + o.inputs.length, 0));
  });

  it('attaches edges to the outermost collapsed box for any set of expanded groups', () => {
    expect(edgeList(visibleEdges(h, new Set()))).toEqual(['x->y d2 c1', 'y->z d2 c0']);
    expect(edgeList(visibleEdges(h, new Set(['y'])))).toEqual(['x->y/q d2 c1', 'y/q->y/r d1 c0', 'y/q->z d1 c0', 'y/r->z d1 c0']);
    expect(edgeList(visibleEdges(h, new Set(['x', 'y'])))).toEqual([
      'x/p1->x/p2 d1 c0', 'x/p1->y/q d1 c1', 'x/p2->y/q d1 c0', 'y/q->y/r d1 c0', 'y/q->z d1 c0', 'y/r->z d1 c0',
    ]);
  });

  it('hand-checked on a real loop: tf_mlir_graph-while-loop (12 nodes, a cycle, 2 control inputs)', () => {
    const loop = buildHierarchy(graphDefToGraph(parseGraphDefText(fixtureText('tf_mlir_graph-while-loop.pbtxt'))));
    expect(children(loop, ROOT_ID)).toEqual(['Const', 'while']);
    expect(edgeList(loop.edges.get(ROOT_ID))).toEqual(['Const->while d1 c0']);
    // while/Less and while/Add are ops and scopes (while/Less/y): moved to while/Less/(Less), while/Add/(Add).
    expect(edgeList(loop.edges.get('while'))).toEqual([
      'while/Add->while/NextIteration d1 c0',
      'while/Enter->while/Merge d1 c0',
      'while/Identity->while/Add d1 c1',
      'while/Less->while/LoopCond d1 c0',
      'while/LoopCond->while/Switch d1 c0',
      'while/Merge->while/Less d1 c1',
      'while/Merge->while/Switch d1 c0',
      'while/NextIteration->while/Merge d1 c0',
      'while/Switch->while/Exit d1 c0',
      'while/Switch->while/Identity d1 c0',
    ]);
    expect(edgeList(loop.edges.get('while/Less'))).toEqual(['while/Less/y->while/Less/(Less) d1 c0']);
    expect(edgeList(loop.edges.get('while/Add'))).toEqual(['while/Add/y->while/Add/(Add) d1 c0']);
  });
});

describe('10,000 nodes in 100 scopes, encoded with protobufjs', () => {
  it('decodes, groups the scopes into one series and lifts the 9,999 chain edges', () => {
    const node: Array<{ name: string; op: string; input: string[] }> = [];
    for (let s = 0; s < 100; s++)
      for (let j = 0; j < 100; j++) {
        const prev = node.length ? [node[node.length - 1].name] : [];
        node.push({ name: `block${s}/op${j}`, op: j % 2 ? 'Relu' : 'MatMul', input: prev });
      }
    const bytes = tbType('GraphDef').encode({ node, versions: { producer: 1 } }).finish();
    const g = graphDefToGraph(decodeGraphDef(bytes));
    expect(g.ops).toHaveLength(10_000);
    const h = buildHierarchy(g);
    expect(children(h, ROOT_ID)).toEqual(['block[0-99]']);
    expect(children(h, 'block[0-99]')).toHaveLength(100);
    // Inside a block the ops op0 … op99 alternate MatMul / Relu: no run of one op, so no op series.
    expect(children(h, 'block7')).toHaveLength(100);
    expect(edgeList(h.edges.get('block[0-99]'))).toHaveLength(99);
    expect(h.edges.get('block7')).toHaveLength(99);
    expect(h.nodes.get('block[0-99]')!.opCount).toBe(10_000);
  });
});

describe('viewer contract (src/core/api/types.ts)', () => {
  // Through the packed form the server answers from (packed.ts).
  const h = view(buildHierarchy(
    graphDefToGraph(
      parseGraphDefText(`
        node { name: "in" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: 3 } } } } } }
        node { name: "net/fc" op: "MatMul" input: "in" device: "/cpu:0"
               attr { key: "note" value { s: "${'x'.repeat(3000)}" } } }`),
    ),
  ));
  it('answers children with their edges, and node details with inputs, shapes and truncated attributes', () => {
    expect(tbChildren(h, ROOT_ID)).toMatchObject({
      node: ROOT_ID,
      total: 2,
      children: [{ id: 'in', nodeType: 1, childCount: 0 }, { id: 'net', nodeType: 0, childCount: 1 }],
      edges: [{ from: 'in', to: 'net', data: 1, control: 0, labels: ['float32[?,3]'] }],
    });
    expect(tbChildren(h, ROOT_ID, 1, 1).children.map((c) => c.id)).toEqual(['net']);
    expect(tbNodeSummary(h, 'net').precisionIndex).toBeNull();
    const d = tbNodeDetail(h, 'net/fc');
    expect(d.path).toEqual(['net']);
    expect(d.upnode).toBe('net');
    expect(d.inputData['net/fc.input.0']).toEqual({ name: 'in', source: 'in', dtype: 'float32', shape: ['?', 3], kind: 'data' });
    expect(d.tb).toMatchObject({ op: 'MatMul', device: '/cpu:0', kind: 'op' });
    const note = d.tb.attrs.find((a) => a.key === 'note')!;
    expect(note).toMatchObject({ fullSize: 3000, truncated: true });
    expect(note.value).toHaveLength(1025);
  });
});
