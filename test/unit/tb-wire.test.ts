import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytesSource } from '../../src/core/formats/tb/tfRecord.js';
import { readEventGraphDefBytes, scanEventFile } from '../../src/core/formats/tb/eventFile.js';
import { decodeGraphDef, graphDefToGraph } from '../../src/core/formats/tb/graphDef.js';
import { readGraphDefWire, WireOpDetails } from '../../src/core/formats/tb/graphDefWire.js';
import { buildHierarchy, buildTree } from '../../src/core/tbgraph/hierarchy.js';
import { packedArrays, packHierarchy, packOpDetails, packTree, TbView } from '../../src/core/tbgraph/packed.js';
import { graphDef } from '../helpers/tbEncode.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * The binary GraphDef read off the wire (graphDefWire.ts) answers exactly what the object decoder answers
 * (graphDefToGraph → hierarchy → pack): every packed array, the problems, and every op's details, on real files and on
 * one encoded here with what the walk must get right (repeated names, missing inputs, output indexes, control inputs,
 * names with empty scope parts, non-ASCII names, shapes with unknown dims and rank, function-valued attributes).
 */
const shared = '/work/shared/data/tb';

/** False (and the wire reader declined) for a graph with library functions, which go the object way. */
function expectSameAsObjects(bytes: Uint8Array) {
  const wire = readGraphDefWire(bytes);
  const graph = graphDefToGraph(decodeGraphDef(bytes));
  if (graph.meta.functions) {
    expect(wire).toBeNull();
    return null;
  }
  expect(wire).not.toBeNull();
  const fast = packTree(buildTree(wire!.table));
  const slow = packHierarchy(buildHierarchy(graph));
  expect(packedArrays(fast).map((a) => Array.from(a))).toEqual(packedArrays(slow).map((a) => Array.from(a)));
  expect([fast.format, fast.meta, fast.problems]).toEqual([slow.format, slow.meta, slow.problems]);
  const a = new TbView(fast, new WireOpDetails(wire!.details));
  const b = new TbView(slow, packOpDetails(graph));
  for (let i = 0; i < a.size; i++) expect(JSON.parse(JSON.stringify(a.op(i)))).toEqual(b.op(i));
  return { nodes: a.size, ops: graph.ops.length };
}

const shape = (dims: number[], unknown_rank = false) => ({ dim: dims.map((size) => ({ size })), unknown_rank });

describe('GraphDef read off the wire', () => {
  it('answers as the object decoder on an encoded graph with the awkward cases', () => {
    const bytes = graphDef({
      versions: { producer: 27 },
      node: [
        { name: 'x', op: 'Placeholder', attr: { dtype: { type: 1 }, _output_shapes: { list: { shape: [shape([-1, 3])] } } } },
        { name: 'x', op: 'Relu', input: ['x'], attr: { T: { type: 1 } } },
        { name: 'split', op: 'Split', input: ['x'], attr: { T: { type: 3 }, _output_shapes: { list: { shape: [shape([2]), shape([], true), shape([4, 5])] } } } },
        { name: '/lead/层/a', op: 'AddV2', input: ['split:1', 'split:2', '^x', 'missing', 'split:7'] },
        { name: 'lead//b', op: 'Mul', input: ['/lead/层/a', 'split:'] },
        { name: 'call', op: 'PartitionedCall', input: ['lead//b'], attr: { f: { func: { name: 'fn' } }, T: { list: { type: [1] } } } },
        ...Array.from({ length: 7 }, (_, i) => ({ name: `s/add_${i + 1}`, op: 'AddV2', input: [i ? `s/add_${i}` : 'call'], attr: { DstT: { type: 9 } } })),
        { name: 'c', op: 'Const', attr: { value: { tensor: { dtype: 1, tensor_shape: shape([2]), float_val: [1.5, 2] } }, dtype: { type: 1 } } },
      ],
    });
    const { ops } = expectSameAsObjects(bytes)!;
    expect(ops).toBe(14);
    // A repeated name, an input naming no node: as graphDefToGraph words it.
    expect(readGraphDefWire(bytes)!.table.ids.slice(0, 2)).toEqual(['x', 'x__1']);
    expect(readGraphDefWire(bytes)!.table.problems).toEqual(['node "/lead/层/a": input "missing" names no node']);
  });

  it('answers as the object decoder on the real binary GraphDefs and event files', async () => {
    const files = [
      ...readdirSync(path.join(shared, 'graphdef_binary')).map((f) => path.join(shared, 'graphdef_binary', f)),
      path.join(repoRoot, 'test/fixtures/tb/tf_function_functional_while.pb'),
    ];
    // Library functions go the object way (they need their scopes and boundary nodes); an empty library does not.
    const read = files.filter((f) => expectSameAsObjects(new Uint8Array(readFileSync(f)))).length;
    expect(read).toBe(files.length - 2);
    const events = [path.join(repoRoot, 'test/fixtures/tb/events.out.tfevents.1795697749.vm.13893.0.tbdata')];
    for (const dir of readdirSync(path.join(shared, 'events'))) for (const f of readdirSync(path.join(shared, 'events', dir))) events.push(path.join(shared, 'events', dir, f));
    let graphs = 0;
    for (const f of events) {
      const file = new Uint8Array(readFileSync(f));
      const source = bytesSource(file);
      for (const entry of (await scanEventFile(source)).graphs.filter((g) => g.kind === 'graph_def')) {
        const { bytes, offset } = await readEventGraphDefBytes(source, entry);
        // Where the disk cache reads the bytes again from.
        expect(file.subarray(offset, offset + bytes.length)).toEqual(bytes);
        if (expectSameAsObjects(bytes)) graphs++;
      }
    }
    expect(graphs).toBeGreaterThanOrEqual(4);
  });

  it('leaves damaged bytes to the object decoder, which names the problem', () => {
    const bytes = new Uint8Array(readFileSync(path.join(shared, 'corrupt/corrupt_truncated_graphdef.pb')));
    expect(readGraphDefWire(bytes)).toBeNull();
    expect(() => decodeGraphDef(bytes)).toThrow(/not a valid GraphDef/);
  });
});
