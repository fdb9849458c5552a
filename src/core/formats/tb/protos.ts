/**
 * The protobuf schemas (our own subset, proto/*.proto) loaded once into protobufjs, and the shapes of the messages
 * they decode to. Field names keep the .proto's snake_case (`keepCase`), so the text-format parser and the binary
 * decoder produce the same objects. int64 fields decode to `Long` (binary) or number (text): read them with `num`.
 */
// One schema file serves every bundle: `?raw` is a vite/vitest built-in and a 10-line esbuild plugin, no generated copy.
import tensorboardProto from './proto/tensorboard.proto?raw';
import onnxProto from './proto/onnx.proto?raw';
import protobuf from 'protobufjs';

export type Int64 = number | { toNumber(): number };

export function num(v: Int64 | null | undefined): number {
  if (v == null) return 0;
  return typeof v === 'number' ? v : v.toNumber();
}

let roots: { tb: protobuf.Root; onnx: protobuf.Root } | null = null;

function load() {
  roots ??= {
    tb: protobuf.parse(tensorboardProto, { keepCase: true }).root,
    onnx: protobuf.parse(onnxProto, { keepCase: true }).root,
  };
  return roots;
}

export function tbType(name: string): protobuf.Type {
  return load().tb.lookupType(`tensorboard.${name}`);
}

export function onnxType(name: string): protobuf.Type {
  return load().onnx.lookupType(`onnx.${name}`);
}

/** Decodes `bytes` as `type`; a damaged message throws protobufjs's error (index out of range, invalid wire type…). */
export function decodeAs<T>(type: protobuf.Type, bytes: Uint8Array): T {
  return type.decode(bytes) as unknown as T;
}

// ---- tensorboard.* shapes (only what we read; every field optional as in proto3) ----

export interface TensorShapeMsg {
  dim?: Array<{ size?: Int64; name?: string }>;
  unknown_rank?: boolean;
}
export interface TensorMsg {
  dtype?: number;
  tensor_shape?: TensorShapeMsg;
  tensor_content?: Uint8Array;
  float_val?: number[];
  double_val?: number[];
  int_val?: number[];
  string_val?: Uint8Array[];
  int64_val?: Int64[];
  bool_val?: boolean[];
  half_val?: number[];
}
export interface NameAttrListMsg {
  name?: string;
  attr?: Record<string, AttrValueMsg>;
}
export interface AttrValueMsg {
  s?: Uint8Array;
  i?: Int64;
  f?: number;
  b?: boolean;
  type?: number;
  shape?: TensorShapeMsg;
  tensor?: TensorMsg;
  func?: NameAttrListMsg;
  placeholder?: string;
  list?: {
    s?: Uint8Array[];
    i?: Int64[];
    f?: number[];
    b?: boolean[];
    type?: number[];
    shape?: TensorShapeMsg[];
    tensor?: TensorMsg[];
    func?: NameAttrListMsg[];
  };
  /** Set by protobufjs on binary decode: which member of the `value` oneof is present. */
  value?: string;
}
export interface NodeDefMsg {
  name?: string;
  op?: string;
  input?: string[];
  device?: string;
  attr?: Record<string, AttrValueMsg>;
}
export interface ArgDefMsg {
  name?: string;
  type?: number;
  type_attr?: string;
}
export interface FunctionDefMsg {
  signature?: { name?: string; input_arg?: ArgDefMsg[]; output_arg?: ArgDefMsg[] };
  attr?: Record<string, AttrValueMsg>;
  node_def?: NodeDefMsg[];
  ret?: Record<string, string>;
  control_ret?: Record<string, string>;
}
export interface GraphDefMsg {
  node?: NodeDefMsg[];
  library?: { function?: FunctionDefMsg[] };
  versions?: { producer?: number; min_consumer?: number };
  version?: number;
}
export interface EventMsg {
  wall_time?: number;
  step?: Int64;
  file_version?: string;
  graph_def?: Uint8Array;
  meta_graph_def?: Uint8Array;
  tagged_run_metadata?: { tag?: string; run_metadata?: Uint8Array };
}
export interface NodeExecStatsMsg {
  node_name?: string;
  all_start_micros?: Int64;
  op_start_rel_micros?: Int64;
  op_end_rel_micros?: Int64;
  all_end_rel_micros?: Int64;
  all_start_nanos?: Int64;
  all_end_rel_nanos?: Int64;
  memory?: Array<{ allocator_name?: string; total_bytes?: Int64; peak_bytes?: Int64; live_bytes?: Int64 }>;
  output?: Array<{ slot?: number; tensor_description?: { dtype?: number; shape?: TensorShapeMsg } }>;
  timeline_label?: string;
  thread_id?: number;
  memory_stats?: { temp_memory_size?: Int64; persistent_memory_size?: Int64 };
}
export interface RunMetadataMsg {
  step_stats?: { dev_stats?: Array<{ device?: string; node_stats?: NodeExecStatsMsg[] }> };
}

// ---- onnx.* shapes ----

export interface OnnxTensorShapeMsg {
  dim?: Array<{ dim_value?: Int64; dim_param?: string; value?: string }>;
}
export interface OnnxTypeMsg {
  tensor_type?: { elem_type?: number; shape?: OnnxTensorShapeMsg };
  sparse_tensor_type?: { elem_type?: number; shape?: OnnxTensorShapeMsg };
  sequence_type?: { elem_type?: OnnxTypeMsg };
  map_type?: { key_type?: number; value_type?: OnnxTypeMsg };
  optional_type?: { elem_type?: OnnxTypeMsg };
}
export interface OnnxValueInfoMsg {
  name?: string;
  type?: OnnxTypeMsg;
}
export interface OnnxTensorMsg {
  dims?: Int64[];
  data_type?: number;
  name?: string;
  raw_data?: Uint8Array;
  data_location?: number;
  external_data?: Array<{ key?: string; value?: string }>;
}
export interface OnnxAttributeMsg {
  name?: string;
  ref_attr_name?: string;
  type?: number;
  f?: number;
  i?: Int64;
  s?: Uint8Array;
  t?: OnnxTensorMsg;
  g?: OnnxGraphMsg;
  tp?: OnnxTypeMsg;
  floats?: number[];
  ints?: Int64[];
  strings?: Uint8Array[];
  tensors?: OnnxTensorMsg[];
  graphs?: OnnxGraphMsg[];
}
export interface OnnxNodeMsg {
  input?: string[];
  output?: string[];
  name?: string;
  op_type?: string;
  domain?: string;
  attribute?: OnnxAttributeMsg[];
  doc_string?: string;
}
export interface OnnxGraphMsg {
  node?: OnnxNodeMsg[];
  name?: string;
  initializer?: OnnxTensorMsg[];
  input?: OnnxValueInfoMsg[];
  output?: OnnxValueInfoMsg[];
  value_info?: OnnxValueInfoMsg[];
}
export interface OnnxFunctionMsg {
  name?: string;
  domain?: string;
  input?: string[];
  output?: string[];
  attribute?: string[];
  node?: OnnxNodeMsg[];
  value_info?: OnnxValueInfoMsg[];
}
export interface OnnxModelMsg {
  ir_version?: Int64;
  opset_import?: Array<{ domain?: string; version?: Int64 }>;
  producer_name?: string;
  producer_version?: string;
  graph?: OnnxGraphMsg;
  functions?: OnnxFunctionMsg[];
}
