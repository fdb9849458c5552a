/**
 * The flat graph every TensorBoard-side reader produces (GraphDef from events / .pb / .pbtxt, ONNX): op nodes with
 * resolved dataflow inputs. Independent of the msprobe model (src/core/model); `hierarchy.ts` groups it by name
 * scope for the viewer. No weights are held: tensors are described by dtype, shape and byte size only.
 */

export interface TbTensorInfo {
  /** `float32`, `int64`…; null when the file does not say. */
  dtype: string | null;
  /** Dimensions (a symbolic ONNX dim is its name, an unknown one '?'); null when the shape is unknown. */
  shape: Array<number | string> | null;
}

export interface TbAttr {
  key: string;
  /** The value as shown, cut at `ATTR_TEXT_LIMIT` characters (tensors: dtype, shape, size and the first values). */
  value: string;
  /** Characters of the full text (or, for tensors, the byte size of the stored data). */
  fullSize: number;
  truncated: boolean;
}

export const ATTR_TEXT_LIMIT = 1024;

export interface TbInput {
  /** As written in the file: `x`, `x:1`, `^x`, an ONNX tensor name, `node:output_arg:0` in a function. */
  name: string;
  /** Index of the producing op in `TbGraph.ops`; null for a parameter or an input no op produces. */
  source: number | null;
  /** Which output of the source (`x:N`). */
  output: number;
  /** A control dependency (`^x`): ordering only, no data. */
  control: boolean;
  /** Shape / dtype of the tensor on this edge where known (edge label). */
  info: TbTensorInfo | null;
  /** ONNX initializer consumed here: shown as a parameter of the node, not as an edge. */
  param?: TbTensorInfo & { bytes: number };
}

export type TbOpRole = 'input' | 'output' | 'arg' | 'ret';

export interface TbOp {
  /**
   * Unique in the graph: the node name (ONNX: its scope path, without the leading '/'; unnamed: `OpType_<index>`;
   * functions: under `__function_library__/<fn>/`), suffixed `__1`, `__2`… when a file repeats a name.
   */
  id: string;
  /** The name as written in the file ('' for unnamed ONNX nodes). */
  name: string;
  /** Scope path the hierarchy nests by: the name split on '/', under subgraph / function containers. */
  path: string[];
  op: string;
  /** ONNX operator domain ('' = ai.onnx). */
  domain?: string;
  device: string;
  attrs: TbAttr[];
  inputs: TbInput[];
  outputs: Array<TbTensorInfo & { name: string }>;
  /** Graph / function boundary nodes the readers add (ONNX graph inputs and outputs, function args and returns). */
  role?: TbOpRole;
  /** Library functions this node calls (by op type, or through a function-valued attribute). */
  calls?: string[];
}

export interface TbGraph {
  format: 'graphdef' | 'onnx';
  ops: TbOp[];
  /** File-level facts for the info panel (producer, IR version, opsets, versions). */
  meta: Record<string, string | number>;
  /** Non-fatal problems, one line each (an input naming no node, a newer ONNX IR version…). */
  problems: string[];
}

/** The top-level container of library functions (TensorBoard's name for it). */
export const FUNCTION_LIBRARY = '__function_library__';

/** Gives every op a unique id (`name`, then `name__1`, … ; unnamed ops `OpType_N`). */
export class OpIds {
  private readonly taken = new Set<string>();
  claim(base: string): string {
    let id = base;
    for (let k = 1; this.taken.has(id); k++) id = `${base}__${k}`;
    this.taken.add(id);
    return id;
  }
}

/** Splits a scope name on '/', dropping the empty parts of ONNX's leading '/' (`/layer1/conv/Conv`). */
export function scopePath(name: string): string[] {
  const parts = name.split('/');
  return parts.includes('') ? parts.filter((p) => p !== '') : parts;
}

export function tensorLabel(info: TbTensorInfo | null): string {
  if (!info) return '';
  const shape = info.shape ? `[${info.shape.join(',')}]` : '';
  return `${info.dtype ?? ''}${shape}`;
}
