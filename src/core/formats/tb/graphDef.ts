/**
 * TensorFlow GraphDef (binary `.pb`, text `.pbtxt`, or the `graph_def` of an event) → `TbGraph`. Inputs follow
 * TensorFlow's naming: `x` / `x:N` (output N of node x) / `^x` (control dependency); inside a library function,
 * `node:output_arg:index` or a bare argument name. Functions go under `__function_library__/<fn>/…` as TensorBoard
 * shows them, with nodes for their arguments and return values so their edges have ends.
 */
import {
  FUNCTION_LIBRARY,
  OpIds,
  scopePath,
  type TbGraph,
  type TbInput,
  type TbAttr,
  type TbOp,
  type TbTensorInfo,
} from '../../tbgraph/opGraph.js';
import { tfAttr, tfDtypeName, tfShape } from './attrText.js';
import type { TbRunStats } from '../../api/types.js';
import {
  decodeAs,
  num,
  tbType,
  type AttrValueMsg,
  type FunctionDefMsg,
  type GraphDefMsg,
  type NodeDefMsg,
  type RunMetadataMsg,
} from './protos.js';
import { parseTextFormat } from './textFormat.js';
import { TbFormatError } from './tbError.js';

export function decodeGraphDef(bytes: Uint8Array): GraphDefMsg {
  if (bytes.length === 0) throw new TbFormatError('empty file (0 bytes)');
  try {
    return decodeAs<GraphDefMsg>(tbType('GraphDef'), bytes);
  } catch (e) {
    throw new TbFormatError(`not a valid GraphDef: ${(e as Error).message}`);
  }
}

export function parseGraphDefText(text: string): GraphDefMsg {
  if (text.trim() === '') throw new TbFormatError('empty file (no text)');
  return parseTextFormat<GraphDefMsg>(text, tbType('GraphDef'));
}

export function parseRunMetadataText(text: string): RunMetadataMsg {
  return parseTextFormat<RunMetadataMsg>(text, tbType('RunMetadata'));
}

/** One node's execution record from a RunMetadata's step stats (TensorBoard's compute-time / memory colouring). */
export type TbNodeStats = Omit<TbRunStats, 'tag' | 'step'>;

/** Step stats by node name (the last record wins when a node ran on several devices). */
export function nodeStatsByName(rm: RunMetadataMsg): Map<string, TbNodeStats> {
  const out = new Map<string, TbNodeStats>();
  for (const dev of rm.step_stats?.dev_stats ?? [])
    for (const s of dev.node_stats ?? [])
      out.set(s.node_name ?? '', {
        device: dev.device ?? '',
        startMicros: num(s.all_start_micros),
        opMicros: num(s.op_end_rel_micros) - num(s.op_start_rel_micros),
        allMicros: num(s.all_end_rel_micros),
        memory: (s.memory ?? []).map((m) => ({
          allocator: m.allocator_name ?? '',
          totalBytes: num(m.total_bytes),
          peakBytes: num(m.peak_bytes),
          liveBytes: num(m.live_bytes),
        })),
        outputs: (s.output ?? []).map((o) => ({
          slot: o.slot ?? 0,
          dtype: tfDtypeName(o.tensor_description?.dtype),
          shape: tfShape(o.tensor_description?.shape),
        })),
        timelineLabel: s.timeline_label ?? '',
      });
  return out;
}

/** `x`, `x:2`, `^x`, `x:out:1` → node name, output index, control flag (`x:` and `x:a` are output 0). */
export function parseTfInput(s: string): { node: string; output: number; control: boolean } {
  const control = s.startsWith('^');
  const body = control ? s.slice(1) : s;
  const first = body.indexOf(':');
  if (first < 0) return { node: body, output: 0, control };
  const last = Number(body.slice(body.lastIndexOf(':') + 1));
  return { node: body.slice(0, first), output: Number.isInteger(last) ? last : 0, control };
}

export function outputInfos(attr: Record<string, AttrValueMsg> | undefined): Array<TbTensorInfo & { name: string }> {
  const shapes = attr?._output_shapes?.list?.shape ?? [];
  const t = attr?.T ?? attr?.dtype ?? attr?.DstT;
  const dtype = t && t.value === 'type' ? tfDtypeName(t.type) : null;
  const outs = shapes.map((s, i) => ({ name: String(i), dtype, shape: tfShape(s) }));
  if (outs.length === 0 && dtype) outs.push({ name: '0', dtype, shape: null });
  return outs;
}

/** Function names a node calls: its op (a library function used as an op) and function-valued attributes. */
export function calledFunctions(node: NodeDefMsg, library: Set<string>): string[] | undefined {
  const calls = new Set<string>();
  if (library.has(node.op ?? '')) calls.add(node.op!);
  for (const v of Object.values(node.attr ?? {})) {
    if (v.value === 'func' && v.func?.name) calls.add(v.func.name);
    for (const f of v.value === 'list' ? (v.list?.func ?? []) : []) if (f.name) calls.add(f.name);
  }
  return calls.size ? [...calls] : undefined;
}

/**
 * Which of the nodes of one name an input means. caffe2 exports name a node after the blob it writes, so an in-place
 * op repeats its input's name: a consumer reads the latest definition before it in the file (else the first).
 */
function definition(indices: number[] | undefined, consumer: number): number | null {
  if (!indices) return null;
  let pick = indices[0];
  for (const i of indices) if (i < consumer) pick = i;
  return pick;
}

/** A node's attributes as shown, sorted by key. */
export function tfAttrs(n: NodeDefMsg): TbAttr[] {
  return Object.entries(n.attr ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => tfAttr(k, v));
}

interface Pending {
  op: TbOp;
  rawInputs: string[];
  /** Node name → op indices (several when a file repeats a name) in the scope the inputs refer to. */
  scope: Map<string, number[]>;
  index: number;
}

export function graphDefToGraph(g: GraphDefMsg): TbGraph {
  const ops: TbOp[] = [];
  const pending: Pending[] = [];
  const ids = new OpIds();
  const problems: string[] = [];
  const functions = g.library?.function ?? [];
  const library = new Set(functions.map((f) => f.signature?.name ?? ''));

  const add = (scope: Map<string, number[]>, op: TbOp, rawInputs: string[]) => {
    const same = scope.get(op.name);
    if (same) same.push(ops.length);
    else scope.set(op.name, [ops.length]);
    pending.push({ op, rawInputs, scope, index: ops.length });
    ops.push(op);
  };
  const nodeOp = (n: NodeDefMsg, idBase: string, path: string[]): TbOp => ({
    id: ids.claim(idBase),
    name: n.name ?? '',
    path,
    op: n.op ?? '',
    device: n.device ?? '',
    attrs: tfAttrs(n),
    inputs: [],
    outputs: outputInfos(n.attr),
    calls: calledFunctions(n, library),
  });

  const main = new Map<string, number[]>();
  for (const n of g.node ?? []) add(main, nodeOp(n, n.name ?? '', scopePath(n.name ?? '')), n.input ?? []);

  for (const f of functions) addFunction(f);
  function addFunction(f: FunctionDefMsg) {
    const fn = f.signature?.name ?? '';
    const base = [FUNCTION_LIBRARY, fn];
    const scope = new Map<string, number[]>();
    const boundary = (name: string, role: 'arg' | 'ret', type: number | undefined, inputs: string[]) =>
      add(
        scope,
        {
          id: ids.claim(`${base.join('/')}/${name}`),
          name,
          path: [...base, name],
          op: role === 'arg' ? '_Arg' : '_Retval',
          device: '',
          attrs: [],
          inputs: [],
          outputs: type ? [{ name: '0', dtype: tfDtypeName(type), shape: null }] : [],
          role,
        },
        inputs,
      );
    for (const a of f.signature?.input_arg ?? []) boundary(a.name ?? '', 'arg', a.type, []);
    for (const n of f.node_def ?? []) {
      const name = n.name ?? '';
      add(scope, nodeOp(n, `${base.join('/')}/${name}`, [...base, ...scopePath(name)]), n.input ?? []);
    }
    for (const a of f.signature?.output_arg ?? []) {
      const ret = f.ret?.[a.name ?? ''];
      boundary(`${a.name ?? ''}:ret`, 'ret', a.type, ret ? [ret] : []);
    }
  }

  for (const p of pending)
    p.op.inputs = p.rawInputs.map((raw): TbInput => {
      const { node, output, control } = parseTfInput(raw);
      const source = definition(p.scope.get(node), p.index);
      if (source === null) problems.push(`node "${p.op.name}": input "${raw}" names no node`);
      const src = source === null ? null : ops[source];
      const info = !control && src ? (src.outputs[output] ?? null) : null;
      return { name: raw, source, output, control, info: info ? { dtype: info.dtype, shape: info.shape } : null };
    });

  const meta: Record<string, string | number> = {};
  if (g.versions?.producer) meta.producer = g.versions.producer;
  if (functions.length) meta.functions = functions.length;
  return { format: 'graphdef', ops, meta, problems };
}
