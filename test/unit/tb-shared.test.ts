import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { readEventGraph, readEventRunMetadata, scanEventFile } from '../../src/core/formats/tb/eventFile.js';
import {
  decodeGraphDef,
  graphDefToGraph,
  parseGraphDefText,
  parseRunMetadataText,
} from '../../src/core/formats/tb/graphDef.js';
import { decodeOnnxModel, onnxToGraph } from '../../src/core/formats/tb/onnx.js';
import { num } from '../../src/core/formats/tb/protos.js';
import { bytesSource } from '../../src/core/formats/tb/tfRecord.js';
import { buildHierarchy, ROOT_ID } from '../../src/core/tbgraph/hierarchy.js';
import { FUNCTION_LIBRARY, type TbGraph } from '../../src/core/tbgraph/opGraph.js';
import { describeShared, sharedDataDir } from '../helpers/shared.js';

/** Expectations per file, from ../shared/data/tb/manifest.json (written by an independent Python reader). */
interface GraphFacts {
  nodes: number;
  function_nodes: number;
  functions: number;
  control_inputs: number;
  with_output_shapes: number;
  distinct_ops: number;
  devices: string[];
  largest_attr_bytes: number;
  from?: string;
}
interface Entry extends Partial<GraphFacts> {
  kind: string;
  error?: string | null;
  records?: number;
  graphs?: GraphFacts[];
  tagged_run_metadata?: Array<{ tag: string; devices: number; node_stats: number }>;
  // ONNX
  nested_nodes?: number;
  initializers?: number;
  initializers_over_1KiB?: number;
  inputs?: number;
  outputs?: number;
  ir_version?: number;
  top_ops?: Record<string, number>;
  opsets?: Record<string, number>;
}

const mainOps = (g: TbGraph) => g.ops.filter((o) => o.path[0] !== FUNCTION_LIBRARY && !o.role);
const functionOps = (g: TbGraph) => g.ops.filter((o) => o.path[0] === FUNCTION_LIBRARY && !o.role);

function checkGraphDef(g: TbGraph, facts: GraphFacts): void {
  const main = mainOps(g);
  expect(main).toHaveLength(facts.nodes);
  expect(functionOps(g)).toHaveLength(facts.function_nodes);
  expect(g.meta.functions ?? 0).toBe(facts.functions);
  expect(main.reduce((a, o) => a + o.inputs.filter((i) => i.control).length, 0)).toBe(facts.control_inputs);
  expect(main.filter((o) => o.attrs.some((a) => a.key === '_output_shapes')).length).toBe(facts.with_output_shapes);
  expect(new Set(main.map((o) => o.op)).size).toBe(facts.distinct_ops);
  expect([...new Set(main.map((o) => o.device).filter(Boolean))].sort()).toEqual([...facts.devices].sort());
  // The full size of the largest attribute is known even when its text is cut (manifest: serialized bytes, a few
  // more than the tensor data we count).
  const largest = Math.max(0, ...main.flatMap((o) => o.attrs.map((a) => a.fullSize)));
  expect(largest).toBeLessThanOrEqual(facts.largest_attr_bytes);
  expect(largest).toBeGreaterThanOrEqual(facts.largest_attr_bytes * 0.9 - 32);
  // Every op lands exactly once in the hierarchy, and every resolved edge is drawn somewhere.
  const h = buildHierarchy(g);
  expect(h.nodes.get(ROOT_ID)!.opCount).toBe(g.ops.length);
  const drawn = [...h.edges.values()].flat().reduce((a, e) => a + e.data + e.control, 0);
  const resolved = g.ops.reduce((a, o, i) => a + o.inputs.filter((x) => x.source !== null && x.source !== i).length, 0);
  expect(drawn).toBe(resolved);
}

describeShared('TensorBoard / ONNX files in ../shared/data/tb match manifest.json', () => {
  const shared = sharedDataDir();
  const base = path.join(shared ?? '', 'tb');
  // Collected even when skipped (no ../shared/data): then there is no manifest to make tests from.
  const manifest = (shared ? JSON.parse(readFileSync(path.join(base, 'manifest.json'), 'utf8')) : {}) as Record<
    string,
    Entry
  >;
  const bytes = (file: string) => new Uint8Array(readFileSync(path.join(base, file)));

  it('lists every file of the folder', () => {
    const files = ['corrupt', 'events', 'graphdef_binary', 'graphdef_text', 'onnx', 'runmetadata'].flatMap((d) =>
      readdirSync(path.join(base, d), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.relative(base, path.join(e.parentPath, e.name))),
    );
    expect(files.sort()).toEqual(Object.keys(manifest).sort());
  });

  for (const [file, m] of Object.entries(manifest)) {
    it(`${file}`, async () => {
      if (m.kind === 'tf-event-file') {
        const src = bytesSource(bytes(file));
        const index = await scanEventFile(src);
        expect(index.records).toBe(m.records);
        expect(index.error?.message ?? null).toBe(m.error ?? null);
        expect(index.graphs.map((g) => g.kind)).toEqual(m.graphs!.map((g) => g.from ?? 'graph_def'));
        for (const [i, entry] of index.graphs.entries())
          checkGraphDef(graphDefToGraph(await readEventGraph(src, entry)), m.graphs![i]);
        expect(index.runMetadata.map((r) => r.tag)).toEqual(m.tagged_run_metadata!.map((r) => r.tag));
        for (const [i, entry] of index.runMetadata.entries()) {
          const rm = await readEventRunMetadata(src, entry);
          const devs = rm.step_stats?.dev_stats ?? [];
          expect(devs).toHaveLength(m.tagged_run_metadata![i].devices);
          expect(devs.reduce((a, d) => a + (d.node_stats?.length ?? 0), 0)).toBe(m.tagged_run_metadata![i].node_stats);
        }
      } else if (m.kind === 'graphdef-binary') checkGraphDef(graphDefToGraph(decodeGraphDef(bytes(file))), m as GraphFacts);
      else if (m.kind === 'graphdef-text')
        checkGraphDef(graphDefToGraph(parseGraphDefText(new TextDecoder().decode(bytes(file)))), m as GraphFacts);
      else if (m.kind === 'runmetadata-text') {
        const rm = parseRunMetadataText(new TextDecoder().decode(bytes(file)));
        expect(rm.step_stats!.dev_stats).toHaveLength(1);
        expect(rm.step_stats!.dev_stats![0].node_stats).toHaveLength(1);
      } else if (m.kind === 'onnx') {
        const model = decodeOnnxModel(bytes(file));
        const g = onnxToGraph(model);
        expect(num(model.ir_version)).toBe(m.ir_version);
        expect(model.graph!.node).toHaveLength(m.nodes!);
        expect(model.graph!.initializer ?? []).toHaveLength(m.initializers!);
        expect(model.graph!.input ?? []).toHaveLength(m.inputs!);
        expect(model.graph!.output ?? []).toHaveLength(m.outputs!);
        const main = g.ops.filter((o) => !o.role && o.path[0] !== FUNCTION_LIBRARY);
        expect(main).toHaveLength(m.nodes! + m.nested_nodes!);
        expect(functionOps(g)).toHaveLength(m.function_nodes!);
        expect(g.meta.functions ?? 0).toBe(m.functions);
        const counts: Record<string, number> = {};
        for (const n of model.graph!.node!) counts[n.op_type!] = (counts[n.op_type!] ?? 0) + 1;
        for (const [op, n] of Object.entries(m.top_ops!)) expect(counts[op]).toBe(n);
        // Initializers are parameters with their byte size; their weights were skipped, not decoded.
        const params = new Map(g.ops.flatMap((o) => o.inputs.filter((i) => i.param).map((i) => [i.name, i.param!.bytes])));
        expect([...params.values()].filter((b) => b > 1024).length).toBe(m.initializers_over_1KiB);
        const opsets = String(g.meta.opsets).split(', ').map((o) => o.split(':'));
        expect(Object.fromEntries(opsets.map(([d, v]) => [d, Number(v)]))).toEqual(m.opsets);
        expect(g.problems).toEqual([]);
      } else if (file.endsWith('.onnx')) expect(() => decodeOnnxModel(bytes(file))).toThrow(/^not a valid ONNX model: /);
      else if (file.endsWith('.pb')) expect(() => decodeGraphDef(bytes(file))).toThrow(/^not a valid GraphDef: /);
      else if (file.endsWith('.pbtxt'))
        // Python's text_format says `2303:7 : Expected "}".`: the same place, the last token before the cut.
        expect(() => parseGraphDefText(new TextDecoder().decode(bytes(file)))).toThrow('2303:7: expected "}", found end of file');
      else throw new Error(`no check for ${file} (${m.kind})`);
    });
  }

  it('pbtxt and pb of the same graph decode to equal models', () => {
    for (const name of ['tf_graph_demo_graph', 'tf_function_functional_while']) {
      const fromText = graphDefToGraph(parseGraphDefText(new TextDecoder().decode(bytes(`graphdef_text/${name}.pbtxt`))));
      const fromBinary = graphDefToGraph(decodeGraphDef(bytes(`graphdef_binary/${name}.pb`)));
      expect(fromText).toEqual(fromBinary);
    }
  });

  it('series grouping on a real unrolled LSTM: TensorBoard names', () => {
    const h = buildHierarchy(graphDefToGraph(decodeGraphDef(bytes('graphdef_binary/tf2onnx_lstm_frozen.pb'))));
    const cell = h.nodes.get('model/rnn/basic_lstm_cell')!;
    const series = cell.children.filter((c) => h.nodes.get(c)!.kind === 'series');
    expect(series).toEqual(expect.arrayContaining(['model/rnn/basic_lstm_cell/Sigmoid[0-83]', 'model/rnn/basic_lstm_cell/MatMul[0-27]']));
    expect(h.nodes.get('model/rnn/basic_lstm_cell/Sigmoid[0-83]')!.children).toHaveLength(84);
    expect(h.nodes.get('model/rnn/basic_lstm_cell/Sigmoid[0-83]')!.children[1]).toBe('model/rnn/basic_lstm_cell/Sigmoid_1');
  });

  it('scope hierarchy on real files: PyTorch Module[child] scopes and ONNX /a/b/Op names', async () => {
    const src = bytesSource(bytes('events/torch_resnet18/events.out.tfevents.1795697586.vm.4215.1'));
    const index = await scanEventFile(src);
    const h = buildHierarchy(graphDefToGraph(await readEventGraph(src, index.graphs[0])));
    expect(h.nodes.get(ROOT_ID)!.children).toEqual(expect.arrayContaining(['ResNet', 'input', 'output']));
    expect(h.nodes.get('ResNet')!.children).toEqual(expect.arrayContaining(['ResNet/Sequential[layer1]', 'ResNet/Conv2d[conv1]']));
    expect(h.nodes.get('ResNet/Sequential[layer1]')!.children).toEqual(['ResNet/Sequential[layer1]/BasicBlock[0]', 'ResNet/Sequential[layer1]/BasicBlock[1]']);
    const onnx = buildHierarchy(onnxToGraph(decodeOnnxModel(bytes('onnx/torch_resnet18_noparams.onnx'))));
    expect(onnx.nodes.get('layer1')!.children).toEqual(['layer1/layer1.0', 'layer1/layer1.1']);
    expect(onnx.nodes.get('layer1/layer1.0/conv1')!.children).toEqual(['layer1/layer1.0/conv1/Conv']);
    expect(onnx.graph.ops.find((o) => o.name === '/layer1/layer1.0/conv1/Conv')!.outputs[0].name).toBe('/layer1/layer1.0/conv1/Conv_output_0');
  });
});
