import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { graphDefToGraph, parseGraphDefText } from '../../src/core/formats/tb/graphDef.js';
import { tbChildren, tbNodeDetail } from '../../src/core/tbgraph/apiView.js';
import { buildHierarchy, ROOT_ID, type TbHierarchy } from '../../src/core/tbgraph/hierarchy.js';
import { DetailsPending, packedTransfer, packHierarchy, packOpDetails, tableTransfer, TbView, type PackedTbHierarchy, type StringTable } from '../../src/core/tbgraph/packed.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * The packed hierarchy the decoding worker hands to the server's thread (packed.ts): after a real transfer through a
 * MessageChannel it answers exactly what the hierarchy holds — every id found by the hash table, children in order,
 * parents, labels, edges and op details — including ids outside ASCII and ids absent from the graph.
 */
function graph(spec: Array<[name: string, op: string, inputs?: string[]]>) {
  return graphDefToGraph({ node: spec.map(([name, op, input]) => ({ name, op, input: input ?? [] })) });
}

function transferred<T>(value: T, transfer: ArrayBuffer[]): Promise<T> {
  const { port1, port2 } = new MessageChannel();
  return new Promise((resolve) => {
    port2.once('message', (m: T) => {
      port1.close();
      port2.close();
      resolve(m);
    });
    port1.postMessage(value, transfer);
  });
}

/** As the worker sends them: the structure, then the op details. */
async function viewOf(h: TbHierarchy): Promise<TbView> {
  const p = packHierarchy(h);
  const v = new TbView(await transferred<PackedTbHierarchy>(p, packedTransfer(p)), null);
  const ops = packOpDetails(h.graph);
  v.setOpDetails(await transferred<StringTable>(ops, tableTransfer(ops)));
  return v;
}

function expectSame(h: TbHierarchy, v: TbView) {
  expect(v.size).toBe(h.nodes.size);
  for (const [id, n] of h.nodes) {
    const i = v.indexOf(id);
    expect(i, id).toBeGreaterThanOrEqual(0);
    expect(v.id(i)).toBe(id);
    expect(v.label(i)).toBe(n.label);
    expect(v.kind(i)).toBe(n.kind);
    expect(v.opCount(i)).toBe(n.opCount);
    expect(Array.from(v.children(i), (c) => v.id(c))).toEqual(n.children);
    expect(v.parent(i) < 0 ? null : v.id(v.parent(i))).toBe(n.parent);
    expect(v.edges(i)).toEqual(h.edges.get(id) ?? []);
    if (n.op >= 0) {
      const { id: _id, name: _name, path: _path, ...detail } = h.graph.ops[n.op];
      expect(v.op(i)).toEqual(JSON.parse(JSON.stringify(detail)));
    } else expect(v.op(i)).toBeNull();
  }
}

describe('packed TensorBoard hierarchy', () => {
  it('answers every node of a real loop graph after a transfer, and nothing for unknown ids', async () => {
    const text = readFileSync(path.join(repoRoot, 'test/fixtures/tb/tf_mlir_graph-while-loop.pbtxt'), 'utf8');
    const h = buildHierarchy(graphDefToGraph(parseGraphDefText(text)));
    const packed = packHierarchy(h);
    const v = new TbView(await transferred(packed, packedTransfer(packed)), null);
    // Transferred, not copied: the sender's buffers are detached.
    expect(packed.childList.length).toBe(0);
    // The structure answers before the op details arrive; an op's details wait for them.
    expect(tbChildren(v, 'while').total).toBe(h.nodes.get('while')!.children.length);
    expect(() => tbNodeDetail(v, 'while/Merge')).toThrow(DetailsPending);
    const ops = packOpDetails(h.graph);
    v.setOpDetails(await transferred(ops, tableTransfer(ops)));
    expectSame(h, v);
    expect(v.id(0)).toBe(ROOT_ID);
    expect(v.indexOf('while/Les')).toBe(-1);
    expect(v.indexOf('')).toBe(-1);
    expect(tbChildren(v, 'while/Less').edges).toEqual([{ from: 'while/Less/y', to: 'while/Less/(Less)', data: 1, control: 0, labels: ['int32'] }]);
  });

  it('finds 5,000 ids with shared prefixes and non-ASCII names through its hash table', async () => {
    const spec: Array<[string, string, string[]?]> = [];
    for (let s = 0; s < 50; s++)
      for (let j = 0; j < 100; j++) spec.push([`层${s}/块_${j % 7 === 0 ? 'é' : ''}${j}`, j % 2 ? 'Relu' : 'MatMul', j ? [`层${s}/块_${(j - 1) % 7 === 0 ? 'é' : ''}${j - 1}`] : []]);
    const h = buildHierarchy(graph(spec));
    const v = await viewOf(h);
    expectSame(h, v);
    const d = tbNodeDetail(v, '层3/块_é7');
    expect(d.path).toEqual(['层[0-49]', '层3']);
    expect(d.inputData['层3/块_é7.input.0']).toMatchObject({ source: '层3/块_6', kind: 'data' });
  });
});
