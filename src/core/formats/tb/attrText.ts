/**
 * Attribute values as shown in node details: TF `AttrValue` and ONNX `AttributeProto` turned into one-line text,
 * cut at ATTR_TEXT_LIMIT with the full size kept, so a 300 KB constant never reaches the page (issue 16: "large
 * values truncated"). Tensors show dtype, shape, byte size and at most a few leading values.
 */
import { ATTR_TEXT_LIMIT, type TbAttr, type TbTensorInfo } from '../../tbgraph/opGraph.js';
import {
  num,
  type AttrValueMsg,
  type OnnxAttributeMsg,
  type OnnxGraphMsg,
  type OnnxTensorMsg,
  type OnnxTypeMsg,
  type TensorMsg,
  type TensorShapeMsg,
} from './protos.js';

const TF_DTYPES = [
  'invalid', 'float32', 'float64', 'int32', 'uint8', 'int16', 'int8', 'string', 'complex64', 'int64', 'bool',
  'qint8', 'quint8', 'qint32', 'bfloat16', 'qint16', 'quint16', 'uint16', 'complex128', 'float16', 'resource',
  'variant', 'uint32', 'uint64', 'float8_e5m2', 'float8_e4m3fn', 'dt26', 'dt27', 'dt28', 'int4', 'uint4',
];
const TF_ITEM_BYTES: Record<number, number> = {
  1: 4, 2: 8, 3: 4, 4: 1, 5: 2, 6: 1, 8: 8, 9: 8, 10: 1, 14: 2, 17: 2, 18: 16, 19: 2, 22: 4, 23: 8,
};

/** TensorFlow DataType → name (`float32`, `int64_ref`…). */
export function tfDtypeName(t: number | undefined): string {
  const v = t ?? 0;
  const base = v > 100 ? v - 100 : v;
  const name = TF_DTYPES[base] ?? `dtype${base}`;
  return v > 100 ? `${name}_ref` : name;
}

const ONNX_DTYPES = [
  'undefined', 'float32', 'uint8', 'int8', 'uint16', 'int16', 'int32', 'int64', 'string', 'bool', 'float16',
  'float64', 'uint32', 'uint64', 'complex64', 'complex128', 'bfloat16', 'float8e4m3fn', 'float8e4m3fnuz',
  'float8e5m2', 'float8e5m2fnuz', 'uint4', 'int4', 'float4e2m1',
];
const ONNX_ITEM_BYTES = [0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 8, 16, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5];

export function onnxDtypeName(t: number | undefined): string {
  return ONNX_DTYPES[t ?? 0] ?? `dtype${t}`;
}

export function tfShape(s: TensorShapeMsg | undefined): Array<number | string> | null {
  if (!s || s.unknown_rank) return null;
  return (s.dim ?? []).map((d) => {
    const n = num(d.size);
    return n < 0 ? '?' : n;
  });
}

function shapeText(shape: Array<number | string> | null): string {
  return shape ? `[${shape.join(',')}]` : '[?]';
}

function numel(shape: Array<number | string> | null): number | null {
  if (!shape) return null;
  let n = 1;
  for (const d of shape) {
    if (typeof d !== 'number') return null;
    n *= d;
  }
  return n;
}

/** A float32 value in the fewest digits that read back as the same float32 (0.1, not 0.10000000149011612). */
export function float32Text(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  for (let p = 1; p < 9; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return String(s);
  }
  return String(v);
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as text: UTF-8 when valid, else C-style octal escapes as in the text format. */
export function bytesText(b: Uint8Array, limit = ATTR_TEXT_LIMIT): string {
  const part = b.length > limit * 4 ? b.subarray(0, limit * 4) : b;
  try {
    return fatalUtf8.decode(part);
  } catch {
    let s = '';
    for (let i = 0; i < part.length && s.length < limit; i++) {
      const c = part[i];
      s += c >= 32 && c < 127 && c !== 92 ? String.fromCharCode(c) : `\\${c.toString(8).padStart(3, '0')}`;
    }
    return s;
  }
}

function cut(key: string, full: string, fullSize = full.length): TbAttr {
  const truncated = full.length > ATTR_TEXT_LIMIT || fullSize > full.length;
  const value = full.length > ATTR_TEXT_LIMIT ? `${full.slice(0, ATTR_TEXT_LIMIT)}…` : full;
  return { key, value, fullSize, truncated };
}

const PREVIEW = 8;

function listPreview(values: ArrayLike<number | string | boolean>, total: number): string {
  const shown = Array.from({ length: Math.min(PREVIEW, values.length) }, (_, i) => String(values[i]));
  return `[${shown.join(', ')}${total > shown.length ? ', …' : ''}]`;
}

/** Leading values of a TF tensor_content for the common little-endian numeric types. */
function contentPreview(dtype: number, content: Uint8Array): string {
  const dv = new DataView(content.buffer, content.byteOffset, content.byteLength);
  const read: Record<number, [number, (o: number) => number | bigint]> = {
    1: [4, (o) => Number(float32Text(dv.getFloat32(o, true)))],
    2: [8, (o) => dv.getFloat64(o, true)],
    3: [4, (o) => dv.getInt32(o, true)],
    9: [8, (o) => dv.getBigInt64(o, true)],
    4: [1, (o) => dv.getUint8(o)],
    10: [1, (o) => dv.getUint8(o)],
  };
  const r = read[dtype];
  if (!r) return '';
  const count = Math.floor(content.length / r[0]);
  const vals: string[] = [];
  for (let i = 0; i < Math.min(PREVIEW, count); i++) vals.push(String(r[1](i * r[0])));
  return ` [${vals.join(', ')}${count > PREVIEW ? ', …' : ''}]`;
}

export function tfTensorInfo(t: TensorMsg): TbTensorInfo {
  return { dtype: tfDtypeName(t.dtype), shape: tfShape(t.tensor_shape) };
}

function tfTensorText(t: TensorMsg): { text: string; bytes: number; elided: boolean } {
  const info = tfTensorInfo(t);
  const head = `${info.dtype}${shapeText(info.shape)}`;
  const dtype = t.dtype ?? 0;
  if (t.tensor_content && t.tensor_content.length > 0) {
    const bytes = t.tensor_content.length;
    const elided = bytes > PREVIEW * (TF_ITEM_BYTES[dtype] ?? 1);
    return { text: `${head} ${bytes} bytes${contentPreview(dtype, t.tensor_content)}`, bytes, elided };
  }
  const lists: Array<ArrayLike<number | string | boolean> | undefined> = [
    t.float_val?.map(float32Text), t.double_val, t.int_val, t.int64_val?.map(num), t.bool_val, t.half_val,
    t.string_val?.map((s) => JSON.stringify(bytesText(s, 64))),
  ];
  const vals = lists.find((l) => l && l.length > 0);
  if (!vals) return { text: head, bytes: 0, elided: false };
  const bytes = t.string_val?.length
    ? t.string_val.reduce((a, s) => a + s.length, 0)
    : vals.length * (TF_ITEM_BYTES[dtype] ?? 4);
  return { text: `${head} ${listPreview(vals, vals.length)}`, bytes, elided: vals.length > PREVIEW };
}

/** `value` names the member of AttrValue's oneof that is set (protobufjs on decode, our text parser alike). */
function tfValueText(v: AttrValueMsg): string {
  switch (v.value) {
    case 'list': {
      // Plain loops, no spread arrays: this runs for every node's `_output_shapes`.
      const l = v.list ?? {};
      const parts: string[] = [];
      for (const x of l.s ?? []) parts.push(JSON.stringify(bytesText(x)));
      for (const x of l.i ?? []) parts.push(String(num(x)));
      for (const x of l.f ?? []) parts.push(float32Text(x));
      for (const x of l.b ?? []) parts.push(String(x));
      for (const x of l.type ?? []) parts.push(tfDtypeName(x));
      for (const x of l.shape ?? []) parts.push(shapeText(tfShape(x)));
      for (const x of l.tensor ?? []) parts.push(tfTensorText(x).text);
      for (const x of l.func ?? []) parts.push(x.name ?? '');
      return `[${parts.join(', ')}]`;
    }
    case 'i':
      return String(num(v.i));
    case 'f':
      return float32Text(v.f ?? 0);
    case 'b':
      return String(v.b);
    case 'type':
      return tfDtypeName(v.type);
    case 'shape':
      return shapeText(tfShape(v.shape));
    case 'func':
      return v.func?.name ?? '';
    case 'placeholder':
      return `$${v.placeholder}`;
    default:
      return '';
  }
}

export function tfAttr(key: string, v: AttrValueMsg): TbAttr {
  if (v.value === 'tensor' && v.tensor) {
    const t = tfTensorText(v.tensor);
    return { ...cut(key, t.text), fullSize: t.bytes, truncated: t.elided || t.text.length > ATTR_TEXT_LIMIT };
  }
  if (v.value === 's') {
    const b = v.s ?? new Uint8Array(0);
    const text = bytesText(b);
    return cut(key, text, Math.max(b.length, text.length));
  }
  return cut(key, tfValueText(v));
}

// ---- ONNX ----

export function onnxTypeInfo(t: OnnxTypeMsg | undefined): TbTensorInfo | null {
  const tt = t?.tensor_type ?? t?.sparse_tensor_type;
  if (!tt) return null;
  const shape = tt.shape
    ? (tt.shape.dim ?? []).map((d) =>
        d.value === 'dim_param' ? (d.dim_param ?? '?') : d.value === 'dim_value' ? num(d.dim_value) : '?',
      )
    : null;
  return { dtype: onnxDtypeName(tt.elem_type), shape };
}

/** An initializer / attribute tensor: dims, type and the byte size of its data (raw_data, or dims × item size). */
export function onnxTensorInfo(t: OnnxTensorMsg): TbTensorInfo & { bytes: number } {
  const shape = (t.dims ?? []).map(num);
  const n = numel(shape) ?? 0;
  const bytes = t.raw_data?.length ? t.raw_data.length : Math.ceil(n * (ONNX_ITEM_BYTES[t.data_type ?? 0] ?? 0));
  return { dtype: onnxDtypeName(t.data_type), shape, bytes };
}

function onnxTensorText(t: OnnxTensorMsg): string {
  const i = onnxTensorInfo(t);
  return `${i.dtype}${shapeText(i.shape)} ${i.bytes} bytes${t.data_location === 1 ? ' (external)' : ''}`;
}

function graphText(g: OnnxGraphMsg): string {
  return `graph ${g.name ? JSON.stringify(g.name) : ''} (${g.node?.length ?? 0} nodes)`.replace('  ', ' ');
}

// AttributeProto.AttributeType (onnx.proto).
const A = {
  FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, GRAPH: 5, FLOATS: 6, INTS: 7, STRINGS: 8, TENSORS: 9, GRAPHS: 10, TYPE_PROTO: 13,
};

/** IR < 3 writers may leave `type` unset: the member that is present says it. */
function attributeType(a: OnnxAttributeMsg): number {
  if (a.type) return a.type;
  if (a.g) return A.GRAPH;
  if (a.t) return A.TENSOR;
  if (a.s?.length) return A.STRING;
  if (a.graphs?.length) return A.GRAPHS;
  if (a.tensors?.length) return A.TENSORS;
  if (a.strings?.length) return A.STRINGS;
  if (a.ints?.length) return A.INTS;
  if (a.floats?.length) return A.FLOATS;
  return a.f ? A.FLOAT : A.INT;
}

export function onnxAttr(a: OnnxAttributeMsg): TbAttr {
  const key = a.name ?? '';
  if (a.ref_attr_name) return cut(key, `@${a.ref_attr_name}`);
  const type = attributeType(a);
  switch (type) {
    case A.FLOAT:
      return cut(key, float32Text(a.f ?? 0));
    case A.INT:
      return cut(key, String(num(a.i)));
    case A.STRING: {
      const text = bytesText(a.s ?? new Uint8Array(0));
      return cut(key, text, Math.max(a.s?.length ?? 0, text.length));
    }
    case A.TENSOR: {
      const info = a.t ? onnxTensorInfo(a.t) : { bytes: 0 };
      return { ...cut(key, a.t ? onnxTensorText(a.t) : ''), fullSize: info.bytes };
    }
    case A.GRAPH:
      return cut(key, a.g ? graphText(a.g) : '');
    case A.FLOATS:
      return cut(key, `[${(a.floats ?? []).map(float32Text).join(', ')}]`);
    case A.INTS:
      return cut(key, `[${(a.ints ?? []).map(num).join(', ')}]`);
    case A.STRINGS:
      return cut(key, `[${(a.strings ?? []).map((s) => JSON.stringify(bytesText(s))).join(', ')}]`);
    case A.TENSORS:
      return cut(key, `[${(a.tensors ?? []).map(onnxTensorText).join(', ')}]`);
    case A.GRAPHS:
      return cut(key, `[${(a.graphs ?? []).map(graphText).join(', ')}]`);
    case A.TYPE_PROTO: {
      const info = onnxTypeInfo(a.tp);
      return cut(key, info ? `${info.dtype}${shapeText(info.shape)}` : 'type');
    }
    default:
      return cut(key, '');
  }
}
