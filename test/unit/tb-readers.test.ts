import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crc32c, maskedCrc32c } from '../../src/core/formats/tb/crc32c.js';
import { readEventGraph, readEventRunMetadata, scanEventFile } from '../../src/core/formats/tb/eventFile.js';
import {
  decodeGraphDef,
  graphDefToGraph,
  nodeStatsByName,
  parseGraphDefText,
  parseRunMetadataText,
} from '../../src/core/formats/tb/graphDef.js';
import { decodeOnnxModel, onnxToGraph } from '../../src/core/formats/tb/onnx.js';
import { num, onnxType, tbType } from '../../src/core/formats/tb/protos.js';
import { parseTextFormat } from '../../src/core/formats/tb/textFormat.js';
import { TbFileProblem, TbFormatError } from '../../src/core/formats/tb/tbError.js';
import { FileProblem } from '../../src/core/fileProblem.js';
import { bytesSource, forEachTfRecord, type ByteSource } from '../../src/core/formats/tb/tfRecord.js';
import { FUNCTION_LIBRARY } from '../../src/core/tbgraph/opGraph.js';
import { buildHierarchy } from '../../src/core/tbgraph/hierarchy.js';
import { repoRoot } from '../helpers/shared.js';
import { concat, frame } from '../helpers/tbEncode.js';

const fixture = (name: string) => new Uint8Array(readFileSync(path.join(repoRoot, 'test/fixtures/tb', name)));
const text = (name: string) => new TextDecoder().decode(fixture(name));

describe('CRC-32C', () => {
  it('matches the Castagnoli check value and the TFRecord mask', () => {
    const digits = new TextEncoder().encode('123456789');
    expect(crc32c(digits)).toBe(0xe3069283);
    // Slicing-by-8 and the byte loop agree on every length around the 8-byte stride.
    const bytes = Uint8Array.from({ length: 37 }, (_, i) => (i * 97 + 13) & 0xff);
    for (let n = 0; n <= bytes.length; n++) {
      let c = 0xffffffff;
      for (let i = 0; i < n; i++) {
        c ^= bytes[i];
        for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
      }
      expect(crc32c(bytes, 0, n)).toBe((c ^ 0xffffffff) >>> 0);
    }
    const c = crc32c(digits);
    expect(maskedCrc32c(digits)).toBe(((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0);
  });
});

describe('event files (TFRecord framing)', () => {
  // data/tb README, corrupt/ table: what is wrong, where, and how many good records come first.
  it.each([
    ['corrupt_events_bad_data_crc.tfevents', 6, 'bad data CRC at offset 326', 326],
    ['corrupt_events_bad_length_crc.tfevents', 1, 'bad length CRC at offset 88', 88],
    ['corrupt_events_trailing_garbage.tfevents', 18, 'truncated header at offset 6037 (7 bytes left)', 6037],
    ['corrupt_events_truncated.tfevents', 6, 'truncated record at offset 326 (need 5186 bytes, have 2597)', 326],
  ])('%s: %i good records, then "%s"', async (file, records, message, offset) => {
    const index = await scanEventFile(bytesSource(fixture(file)));
    expect(index.records).toBe(records);
    expect(index.nextOffset).toBe(offset);
    expect(index.error).toBeInstanceOf(TbFormatError);
    expect(index.error!.message).toBe(message);
    expect(index.error!.where.offset).toBe(offset);
    // Records before the damage are still read: the trailing-garbage file's graph comes out whole.
    if (file.includes('garbage')) {
      expect(index.graphs.map((g) => g.tag)).toEqual(['graph_def']);
      const graph = graphDefToGraph(await readEventGraph(bytesSource(fixture(file)), index.graphs[0]));
      expect(graph.ops).toHaveLength(25);
    } else expect(index.graphs).toEqual([]);
  });

  it('lists each graph_def as a tag with its step, and the tagged run metadata', async () => {
    const src = bytesSource(fixture('events.out.tfevents.1795697749.vm.13893.0.tbdata'));
    const index = await scanEventFile(src);
    expect(index.error).toBeNull();
    expect(index.records).toBe(8);
    expect(index.fileVersion).toBe('brain.Event:2');
    expect(index.graphs.map((g) => [g.tag, g.kind, g.step])).toEqual([
      ['graph_def', 'graph_def', 0],
      ['graph_def_1', 'graph_def', 1],
      ['graph_def_2', 'graph_def', 2],
    ]);
    expect(index.graphs.every((g) => g.wallTime > 1.7e9)).toBe(true);
    expect(index.nextOffset).toBe(src.size);
    // Read in chunks smaller than a record (the server's thread yields between chunks): the same index.
    const small = await scanEventFile(src, { chunkSize: 64 });
    expect({ ...small, error: null }).toEqual(index);
    // A file that grew is scanned on from where the last scan stopped.
    const resumed = await scanEventFile(src, { startOffset: index.graphs[1].recordOffset });
    expect(resumed.graphs.map((g) => [g.kind, g.step, g.recordOffset])).toEqual(
      index.graphs.slice(1).map((g) => [g.kind, g.step, g.recordOffset]),
    );
    const graphs = await Promise.all(index.graphs.map(async (g) => graphDefToGraph(await readEventGraph(src, g))));
    // 12 nodes; 1 node + 3 library functions with 8 nodes; 8 nodes (manifest.json).
    const main = (g: (typeof graphs)[0]) => g.ops.filter((o) => o.path[0] !== FUNCTION_LIBRARY);
    const inFunctions = (g: (typeof graphs)[0]) => g.ops.filter((o) => o.path[0] === FUNCTION_LIBRARY && !o.role);
    expect(graphs.map((g) => [main(g).length, inFunctions(g).length])).toEqual([[12, 0], [1, 8], [8, 0]]);
    // tf_graph_app_demo_graph's devices (manifest.json: 1, 2, tpu).
    expect(new Set(graphs[2].ops.map((o) => o.device).filter(Boolean))).toEqual(new Set(['1', '2', 'tpu']));

    expect(index.runMetadata.map((r) => r.tag)).toEqual(['step99']);
    const rm = await readEventRunMetadata(src, index.runMetadata[0]);
    const fromText = parseRunMetadataText(text('run_metadata_step99.pbtxt'));
    const stats = rm.step_stats!.dev_stats![0].node_stats![0];
    expect(stats.node_name).toBe('_SOURCE');
    expect(num(stats.all_start_micros)).toBe(1459365298611334);
    expect(num(stats.op_end_rel_micros)).toBe(30);
    expect(stats.timeline_label).toBe('_SOURCE = NoOp()');
    expect(stats.memory![0].allocator_name).toBe('cpu');
    const textStats = fromText.step_stats!.dev_stats![0].node_stats![0];
    for (const k of ['all_start_micros', 'op_start_rel_micros', 'op_end_rel_micros', 'all_end_rel_micros'] as const)
      expect(num(stats[k])).toBe(num(textStats[k]));
    expect(rm.step_stats!.dev_stats![0].device).toBe(fromText.step_stats!.dev_stats![0].device);
    expect(nodeStatsByName(rm).get('_SOURCE')).toEqual({
      device: '/job:localhost/replica:0/task:0/cpu:0',
      startMicros: 1459365298611334,
      opMicros: 1,
      allMicros: 52,
      memory: [{ allocator: 'cpu', totalBytes: 0, peakBytes: 0, liveBytes: 0 }],
      outputs: [],
      timelineLabel: '_SOURCE = NoOp()',
    });
    expect(nodeStatsByName(fromText)).toEqual(nodeStatsByName(rm));
  });

  it('the graphs TensorBoard\'s writer stored equal the text files they were written from', async () => {
    const src = bytesSource(fixture('events.out.tfevents.1795697749.vm.13893.0.tbdata'));
    const index = await scanEventFile(src);
    const pairs: Array<[number, string]> = [
      [0, 'tf_mlir_graph-while-loop.pbtxt'],
      [1, 'tf_function_functional_while.pbtxt'],
      [2, 'tf_graph_app_demo_graph.pbtxt'],
    ];
    for (const [i, file] of pairs)
      expect(graphDefToGraph(await readEventGraph(src, index.graphs[i]))).toEqual(
        graphDefToGraph(parseGraphDefText(text(file))),
      );
  });

  it('a PyTorch SummaryWriter file: scalars around one graph_def of Module[child] scopes, run metadata step1', async () => {
    const src = bytesSource(fixture('events.out.tfevents.1795697585.vm.4215.0'));
    const index = await scanEventFile(src);
    expect(index).toMatchObject({ records: 18, error: null, nextOffset: src.size });
    expect(index.graphs.map((g) => [g.tag, g.recordOffset])).toEqual([['graph_def', 326]]);
    expect(index.runMetadata.map((r) => r.tag)).toEqual(['step1']);
    const rm = await readEventRunMetadata(src, index.runMetadata[0]);
    expect(rm.step_stats?.dev_stats?.map((d) => d.node_stats?.length ?? 0)).toEqual([0]);
    const g = graphDefToGraph(await readEventGraph(src, index.graphs[0]));
    expect(g.ops).toHaveLength(25);
    expect(g.ops.filter((o) => o.outputs.some((x) => x.shape))).toHaveLength(9);
    expect(Math.max(...g.ops.map((o) => o.path.length - 1))).toBe(5);
    expect(g.ops.some((o) => o.op === 'IO Node')).toBe(true);
  });

  it('reads a large file of scalars through bounded chunks, never decoding the summaries', async () => {
    // 20,000 summary records (Event field 5, bytes that are no valid Summary: decoding them would throw), a graph
    // in the middle, more summaries after it.
    const summary = (i: number) => {
      const body = new Uint8Array([0x09, ...new Uint8Array(8), 0x2a, 4, 0xff, 0xff, 0xff, (i & 0x7f) | 0]);
      return frame(body);
    };
    const graphDef = tbType('GraphDef').encode({ node: [{ name: 'a', op: 'Placeholder' }, { name: 'b', op: 'Relu', input: ['a'] }] }).finish();
    const graphEvent = tbType('Event').encode({ wall_time: 5, step: 7, graph_def: graphDef }).finish();
    const parts = [...Array.from({ length: 10_000 }, (_, i) => summary(i)), frame(graphEvent), ...Array.from({ length: 10_000 }, (_, i) => summary(i))];
    const bytes = concat(parts);
    const reads: number[] = [];
    const chunk = 64 * 1024;
    const source: ByteSource = {
      size: bytes.length,
      read: async (offset, length) => {
        reads.push(length);
        return bytes.slice(offset, offset + length);
      },
    };
    const index = await scanEventFile(source);
    expect(index.error).toBeNull();
    expect(index.records).toBe(20_001);
    expect(index.graphs).toEqual([{ tag: 'graph_def', kind: 'graph_def', step: 7, wallTime: 5, recordOffset: 10_000 * 31 }]);
    expect(Math.max(...reads)).toBeLessThanOrEqual(1 << 20);
    expect(reads.reduce((a, b) => a + b, 0)).toBeLessThan(bytes.length * 1.01);
    // The chunk size is the caller's: smaller chunks, more reads, same records.
    let n = 0;
    const small: ByteSource = { size: bytes.length, read: async (o, l) => { expect(l).toBeLessThanOrEqual(chunk); n++; return bytes.slice(o, o + l); } };
    let count = 0;
    await forEachTfRecord(small, (rec) => void (count += rec.data.length > 0 ? 1 : 0), { chunkSize: chunk });
    expect(count).toBe(20_001);
    expect(n).toBeGreaterThan(bytes.length / chunk - 1);
    const graph = graphDefToGraph(await readEventGraph(source, index.graphs[0]));
    expect(graph.ops.map((o) => [o.id, o.inputs.map((i) => i.source)])).toEqual([['a', []], ['b', [0]]]);
  });

  it('names a record whose payload is not an Event', async () => {
    const index = await scanEventFile(bytesSource(concat([frame(new Uint8Array([0x08, 3])), frame(new Uint8Array([0x0f, 1, 2]))])));
    expect(index.records).toBe(1);
    expect(index.nextOffset).toBe(18);
    expect(index.error?.message).toBe('record at offset 18 is not an Event: invalid wire type 7');
  });

  it('reads a 0-byte file as no records and no error', async () => {
    const index = await scanEventFile(bytesSource(new Uint8Array(0)));
    expect(index).toMatchObject({ records: 0, graphs: [], error: null });
  });
});

describe('GraphDef text and binary', () => {
  it('decodes the .pbtxt and the .pb of one graph to equal models, function library included', () => {
    const fromText = graphDefToGraph(parseGraphDefText(text('tf_function_functional_while.pbtxt')));
    const fromBinary = graphDefToGraph(decodeGraphDef(fixture('tf_function_functional_while.pb')));
    expect(fromText).toEqual(fromBinary);
    expect(fromText.ops.filter((o) => o.path[0] !== FUNCTION_LIBRARY).map((o) => [o.id, o.op])).toEqual([
      ['MyFunc_AenMyWWx1Us', 'MyFunc_AenMyWWx1Us'],
    ]);
    expect(fromText.ops[0].calls).toEqual(['MyFunc_AenMyWWx1Us']);
    const fnNodes = fromText.ops.filter((o) => o.path[0] === FUNCTION_LIBRARY && !o.role);
    expect(fnNodes).toHaveLength(8);
    // `While` in MyFunc calls Body and Cond through its function-valued attributes; its inputs are `node:out:idx`.
    const loop = fromText.ops.find((o) => o.id === `${FUNCTION_LIBRARY}/MyFunc_AenMyWWx1Us/While`)!;
    expect(loop.calls?.sort()).toEqual(['Body_8GOMGeZeK5c', 'Cond_Xf5ttAHgUCg']);
    expect(loop.inputs.map((i) => fromText.ops[i.source!].id)).toEqual([
      `${FUNCTION_LIBRARY}/MyFunc_AenMyWWx1Us/Const`,
      `${FUNCTION_LIBRARY}/MyFunc_AenMyWWx1Us/While/input_1`,
    ]);
    // A bare argument name inside a function resolves to the argument node.
    const sub = fromText.ops.find((o) => o.id === `${FUNCTION_LIBRARY}/Body_8GOMGeZeK5c/sub_0`)!;
    expect(fromText.ops[sub.inputs[0].source!]).toMatchObject({ role: 'arg', name: 'n' });
    expect(fromText.problems).toEqual([]);
  });

  it('keeps control inputs, output indices, _output_shapes and a loop (cycle) as edges', () => {
    const g = graphDefToGraph(parseGraphDefText(text('tf_mlir_graph-while-loop.pbtxt')));
    expect(g.ops).toHaveLength(12);
    const op = (id: string) => g.ops.find((o) => o.id === id)!;
    expect(op('while/Less/y').inputs).toMatchObject([{ name: '^while/Merge', control: true, source: g.ops.indexOf(op('while/Merge')) }]);
    expect(op('while/Identity').inputs).toMatchObject([{ name: 'while/Switch:1', output: 1, control: false }]);
    expect(op('while/Merge').inputs.map((i) => g.ops[i.source!].id)).toEqual(['while/Enter', 'while/NextIteration']);
    const py = graphDefToGraph(parseGraphDefText(text('pytorch_test_pytorch_graph.pbtxt')));
    expect(py.ops.find((o) => o.id === 'input/input')).toMatchObject({ op: 'IO Node', outputs: [{ shape: [1, 3] }] });
    // PyTorch's expect file names GetAttr inputs it does not contain: kept as notes, the graph still loads.
    expect(py.problems).toEqual([
      'node "myLinear/Linear[l]/bias/16": input "myLinear/Linear[l]/weight/13" names no node',
      'node "myLinear/Linear[l]/weight/17": input "myLinear/Linear[l]/weight/13" names no node',
    ]);
  });

  it('a truncated binary GraphDef and a 0-byte file fail with one line; unknown fields are skipped', () => {
    const whole = fixture('tf_function_functional_while.pb');
    expect(() => decodeGraphDef(whole.subarray(0, 400))).toThrow(/^not a valid GraphDef: /);
    expect(() => decodeGraphDef(new Uint8Array(0))).toThrow('empty file (0 bytes)');
    expect(() => parseGraphDefText(' \n')).toThrow('empty file (no text)');
    // A newer writer's field 15 (varint) and field 16 (bytes) after the known ones.
    const withUnknown = concat([whole, new Uint8Array([0x78, 0x2a, 0x82, 0x01, 0x02, 0x61, 0x62])]);
    expect(graphDefToGraph(decodeGraphDef(withUnknown))).toEqual(graphDefToGraph(decodeGraphDef(whole)));
  });
});

describe('protobuf text format', () => {
  const type = tbType('GraphDef');
  it('parses escapes, comments, lists, maps and the `<>`/`:{` forms', () => {
    const g = parseTextFormat<{ node: Array<Record<string, any>>; versions: { producer: number } }>(
      `# a comment
      node { name: "a\\101\\x42\\n\\"q\\" é" 'x' op: "Const"  # trailing comment
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: -1 } } tensor_content: "\\000\\000\\200?" } } }
        attr { key: "l" value { list { i: [1, -2, 0x10] f: 1.5e-3 f: inf b: true type: [DT_INT32, DT_FLOAT_REF] } } }
        input: ["x:1", "^y"];
      }
      node: < name: 'b' unknown_field { deep: [1, 2] other: "s" } also_unknown: 3 device: "/cpu:0" >
      versions: { producer: 27 }`,
      type,
    );
    expect(g.node[0].name).toBe('aAB\n"q" éx');
    expect(Array.from(g.node[0].attr.value.tensor.tensor_content as Uint8Array)).toEqual([0, 0, 0x80, 0x3f]);
    expect(g.node[0].attr.value.tensor.dtype).toBe(1);
    expect(g.node[0].attr.value.value).toBe('tensor');
    expect(g.node[0].attr.l.list).toEqual({ i: [1, -2, 16], f: [Math.fround(0.0015), Infinity], b: [true], type: [3, 101] });
    expect(g.node[0].input).toEqual(['x:1', '^y']);
    expect(g.node[1]).toEqual({ name: 'b', device: '/cpu:0' });
    expect(g.versions.producer).toBe(27);
    const model = graphDefToGraph(g as never);
    expect(model.ops[0].attrs.find((a) => a.key === 'value')!.value).toBe('float32[?] 4 bytes [1]');
    expect(model.ops[0].attrs.find((a) => a.key === 'l')!.value).toBe('[1, -2, 16, 0.0015, Infinity, true, int32, float32_ref]');
  });

  it.each([
    ['node { name: "a" ', '1:14: expected "}", found end of file'],
    ['node {\n  name: "a\n" }', '2:9: unterminated string'],
    ['node {\n  name "a" }', '2:8: expected ":" after "name"'],
    ['node { attr { key: "k" value { type: DT_NOPE } } }', '1:38: unknown DataType value "DT_NOPE"'],
    ['versions { producer: 1.5 }', '1:22: expected an integer, found "1.5"'],
    ['node { name: "a" } }', '1:20: expected a field name, found "}"'],
  ])('%j fails with line:column', (src, message) => {
    expect(() => parseTextFormat(src, type)).toThrow(message);
  });

  it('names the place of nesting deeper than the stack, and the file of any problem', () => {
    const deep = `node { attr { key: "k" value { func { ${'attr { key: "k" value { func { '.repeat(20_000)}`;
    expect(() => parseTextFormat(deep, type)).toThrow(/^\d+:\d+: nested too deeply$/);
    let error: unknown = null;
    try {
      parseGraphDefText('node {');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TbFormatError);
    const problem = new TbFileProblem('g.pbtxt', error as TbFormatError);
    expect(problem).toBeInstanceOf(FileProblem);
    expect(problem.message).toBe('g.pbtxt: 1:6: expected "}", found end of file');
    expect(problem.where).toEqual({ line: 1, column: 6 });
  });
});

describe('ONNX', () => {
  it('reads the main graph, the If/Loop subgraphs under their nodes, and outer-scope edges', () => {
    const g = onnxToGraph(decodeOnnxModel(fixture('torch_loop_if.onnx')));
    const nodes = g.ops.filter((o) => !o.role);
    expect(nodes).toHaveLength(7 + 14);
    const loop = g.ops.find((o) => o.op === 'Loop')!;
    const ifNode = g.ops.find((o) => o.op === 'If' && o.path.length === 1)!;
    const inBody = nodes.filter((o) => o.path.slice(0, loop.path.length + 1).join('/') === [...loop.path, 'body'].join('/'));
    expect(inBody.length).toBeGreaterThan(0);
    const inBranches = nodes.filter((o) => o.path[0] === ifNode.path[0] && o !== ifNode);
    expect(inBranches.map((o) => o.path[1]).filter((p, i, a) => a.indexOf(p) === i).sort()).toEqual(['else_branch', 'then_branch']);
    expect(g.problems).toEqual([]);
    // Every input of every node resolves: to an op (possibly in an enclosing graph) or to an initializer.
    for (const o of g.ops) for (const i of o.inputs) expect(i.source !== null || i.param !== undefined).toBe(true);
    // Some subgraph node reads a tensor of the main graph.
    const outer = nodes.some((o) => o.path.length > 2 && o.inputs.some((i) => i.source !== null && g.ops[i.source].path.length === 1));
    expect(outer).toBe(true);
    expect(g.meta).toMatchObject({ irVersion: 7, opsets: 'ai.onnx:13' });
    const h = buildHierarchy(g);
    // TensorBoard's strict rule: the If node moves into its own group beside its branches.
    const group = h.nodes.get(ifNode.path[0])!;
    expect(group.kind).toBe('scope');
    expect(group.children.map((c) => h.nodes.get(c)!.label).sort()).toEqual([`(${ifNode.path[0]})`, 'else_branch', 'then_branch']);
  });

  it('a truncated model and a 0-byte file fail with one line; a newer IR version loads with a note', () => {
    expect(() => decodeOnnxModel(fixture('torch_loop_if.onnx').subarray(0, 1500))).toThrow(/^not a valid ONNX model: /);
    expect(() => decodeOnnxModel(new Uint8Array(0))).toThrow('empty file (0 bytes)');
    const model = onnxType('ModelProto').encode({
      ir_version: 99,
      graph: { node: [{ op_type: 'Relu', input: ['x'], output: ['y'] }], input: [{ name: 'x' }], output: [{ name: 'y' }] },
    }).finish();
    const g = onnxToGraph(decodeOnnxModel(model));
    expect(g.problems).toEqual(['ONNX IR version 99 is newer than 11; unknown fields were skipped']);
    expect(g.ops.map((o) => [o.id, o.op, o.role ?? null, o.inputs.map((i) => i.source)])).toEqual([
      ['x', 'Input', 'input', []],
      ['Relu_0', 'Relu', null, [0]],
      ['y', 'Output', 'output', [1]],
    ]);
  });
});
