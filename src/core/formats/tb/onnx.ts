/**
 * ONNX ModelProto → `TbGraph`. Edges connect a tensor's producer to its consumers; graph inputs and outputs become
 * boundary nodes, initializers become parameters of the nodes that read them (dtype, shape and byte size only — the
 * weights are skipped by the decoder, see proto/onnx.proto). Subgraphs of If / Loop / Scan attributes nest under
 * their node (`<node>/<attr>/…`, TensorBoard's rule then moves the node itself to `<node>/(<node>)`), and may read
 * tensors of the enclosing graphs. Local functions go under `__function_library__`.
 */
import {
  FUNCTION_LIBRARY,
  OpIds,
  scopePath,
  type TbGraph,
  type TbInput,
  type TbOp,
  type TbTensorInfo,
} from '../../tbgraph/opGraph.js';
import { onnxAttr, onnxTensorInfo, onnxTypeInfo } from './attrText.js';
import {
  decodeAs,
  num,
  onnxType,
  type OnnxGraphMsg,
  type OnnxModelMsg,
  type OnnxNodeMsg,
  type OnnxValueInfoMsg,
} from './protos.js';
import { TbFormatError } from './tbError.js';

/** The newest IR version this reader was written against (11: onnx 1.18); newer files load with a note. */
const KNOWN_IR_VERSION = 11;

export function decodeOnnxModel(bytes: Uint8Array): OnnxModelMsg {
  if (bytes.length === 0) throw new TbFormatError('empty file (0 bytes)');
  try {
    return decodeAs<OnnxModelMsg>(onnxType('ModelProto'), bytes);
  } catch (e) {
    throw new TbFormatError(`not a valid ONNX model: ${(e as Error).message}`);
  }
}

/** Tensor name → producer, looked up through the enclosing graphs (lexical scoping of ONNX subgraphs). */
class TensorScope {
  readonly producers = new Map<string, { op: number; output: number }>();
  readonly params = new Map<string, TbTensorInfo & { bytes: number }>();
  readonly types = new Map<string, TbTensorInfo>();
  constructor(readonly parent: TensorScope | null) {}
  producer(name: string): { op: number; output: number } | null {
    return this.producers.get(name) ?? this.parent?.producer(name) ?? null;
  }
  param(name: string): (TbTensorInfo & { bytes: number }) | null {
    return this.params.get(name) ?? this.parent?.param(name) ?? null;
  }
  type(name: string): TbTensorInfo | null {
    return this.types.get(name) ?? this.parent?.type(name) ?? null;
  }
}

export function onnxToGraph(model: OnnxModelMsg): TbGraph {
  const ops: TbOp[] = [];
  const ids = new OpIds();
  const problems: string[] = [];
  const wiring: Array<{ op: TbOp; names: string[]; scope: TensorScope }> = [];
  const functionKeys = new Map((model.functions ?? []).map((f) => [`${f.domain ?? ''}\u0000${f.name ?? ''}`, f.name ?? '']));

  const addOp = (op: TbOp, inputNames: string[], outputNames: string[], scope: TensorScope) => {
    const index = ops.length;
    ops.push(op);
    outputNames.forEach((t, i) => {
      if (t) scope.producers.set(t, { op: index, output: i });
    });
    wiring.push({ op, names: inputNames, scope });
  };

  const boundary = (name: string, role: 'input' | 'output' | 'arg' | 'ret', base: string[], scope: TensorScope) => {
    const info = scope.type(name);
    const op: TbOp = {
      id: ids.claim([...base, name].join('/')),
      name,
      path: [...base, name],
      op: role === 'input' || role === 'arg' ? 'Input' : 'Output',
      device: '',
      attrs: [],
      inputs: [],
      outputs: role === 'input' || role === 'arg' ? [{ name, dtype: info?.dtype ?? null, shape: info?.shape ?? null }] : [],
      role,
    };
    if (role === 'input' || role === 'arg') addOp(op, [], [name], scope);
    else addOp(op, [name], [], scope);
  };

  const addNodes = (nodes: OnnxNodeMsg[], base: string[], scope: TensorScope) => {
    nodes.forEach((n, i) => {
      const name = n.name ?? '';
      const op = n.op_type ?? '';
      const idBase = name ? [...base.filter((b) => b !== ''), ...scopePath(name)].join('/') : [...base, `${op}_${i}`].join('/');
      const path = name ? [...base, ...scopePath(name)] : [...base, `${op}_${i}`];
      const callee = functionKeys.get(`${n.domain ?? ''}\u0000${op}`);
      const tbOp: TbOp = {
        id: ids.claim(idBase),
        name,
        path,
        op,
        domain: n.domain ?? '',
        device: '',
        attrs: (n.attribute ?? []).map(onnxAttr),
        inputs: [],
        outputs: (n.output ?? []).map((t) => ({ name: t, ...(scope.type(t) ?? { dtype: null, shape: null }) })),
        calls: callee ? [callee] : undefined,
      };
      addOp(tbOp, n.input ?? [], n.output ?? [], scope);
      for (const a of n.attribute ?? []) {
        const graphs = a.g ? [a.g] : (a.graphs ?? []);
        graphs.forEach((g, k) => addGraph(g, [...path, a.graphs?.length ? `${a.name}[${k}]` : (a.name ?? '')], scope, false));
      }
    });
  };

  function addGraph(g: OnnxGraphMsg, base: string[], parent: TensorScope | null, top: boolean) {
    const scope = new TensorScope(parent);
    const typed: OnnxValueInfoMsg[] = [...(g.input ?? []), ...(g.output ?? []), ...(g.value_info ?? [])];
    for (const v of typed) {
      const info = onnxTypeInfo(v.type);
      if (v.name && info) scope.types.set(v.name, info);
    }
    for (const t of g.initializer ?? []) {
      const info = onnxTensorInfo(t);
      scope.params.set(t.name ?? '', info);
      if (!scope.types.has(t.name ?? '')) scope.types.set(t.name ?? '', { dtype: info.dtype, shape: info.shape });
    }
    // IR < 4 lists initializers among the inputs too; those are parameters, not graph inputs.
    for (const v of g.input ?? []) if (!scope.params.has(v.name ?? '')) boundary(v.name ?? '', top ? 'input' : 'arg', base, scope);
    addNodes(g.node ?? [], base, scope);
    for (const v of g.output ?? []) boundary(v.name ?? '', top ? 'output' : 'ret', base, scope);
  }

  if (model.graph) addGraph(model.graph, [], null, true);
  for (const f of model.functions ?? []) {
    const base = [FUNCTION_LIBRARY, f.name ?? ''];
    const scope = new TensorScope(null);
    for (const v of f.value_info ?? []) {
      const info = onnxTypeInfo(v.type);
      if (v.name && info) scope.types.set(v.name, info);
    }
    for (const t of f.input ?? []) boundary(t, 'arg', base, scope);
    addNodes(f.node ?? [], base, scope);
    for (const t of f.output ?? []) boundary(t, 'ret', base, scope);
  }

  for (const w of wiring)
    w.op.inputs = w.names.flatMap((t): TbInput[] => {
      if (t === '') return []; // an omitted optional input
      const param = w.scope.param(t);
      const src = w.scope.producer(t);
      if (param && !src) return [{ name: t, source: null, output: 0, control: false, info: null, param }];
      if (!src) problems.push(`node "${w.op.name || w.op.id}": input "${t}" is produced by no node`);
      return [{ name: t, source: src?.op ?? null, output: src?.output ?? 0, control: false, info: w.scope.type(t) }];
    });

  const ir = num(model.ir_version);
  if (ir > KNOWN_IR_VERSION) problems.push(`ONNX IR version ${ir} is newer than ${KNOWN_IR_VERSION}; unknown fields were skipped`);
  const meta: Record<string, string | number> = { irVersion: ir };
  if (model.producer_name) meta.producer = `${model.producer_name} ${model.producer_version ?? ''}`.trim();
  const opsets = (model.opset_import ?? []).map((o) => `${o.domain || 'ai.onnx'}:${num(o.version)}`);
  if (opsets.length) meta.opsets = opsets.join(', ');
  if (model.functions?.length) meta.functions = model.functions.length;
  return { format: 'onnx', ops, meta, problems };
}
