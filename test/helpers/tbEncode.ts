import { maskedCrc32c } from '../../src/core/formats/tb/crc32c.js';
import { onnxType, tbType } from '../../src/core/formats/tb/protos.js';

/**
 * Event files, GraphDefs and ONNX models encoded with protobufjs from our own `.proto` files (issue 16's test
 * fixtures), framed as TensorBoard's writer frames records: length, masked CRC-32C of the length, data, masked
 * CRC-32C of the data.
 */

export function frame(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(16 + data.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length, true);
  dv.setUint32(8, maskedCrc32c(out, 0, 8), true);
  out.set(data, 12);
  dv.setUint32(12 + data.length, maskedCrc32c(data), true);
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** An Event message (tensorboard.proto field names: wall_time, step, file_version, graph_def, tagged_run_metadata…). */
export function event(fields: Record<string, unknown>): Uint8Array {
  return tbType('Event').encode(tbType('Event').fromObject(fields)).finish();
}

export function graphDef(fields: Record<string, unknown>): Uint8Array {
  return tbType('GraphDef').encode(tbType('GraphDef').fromObject(fields)).finish();
}

export function runMetadata(fields: Record<string, unknown>): Uint8Array {
  return tbType('RunMetadata').encode(tbType('RunMetadata').fromObject(fields)).finish();
}

export function onnxModel(fields: Record<string, unknown>): Uint8Array {
  return onnxType('ModelProto').encode(onnxType('ModelProto').fromObject(fields)).finish();
}

/** A field no reader knows (a newer writer's): varint field `field` = 1, appended to an encoded message. */
export function unknownVarint(field: number): Uint8Array {
  const tag: number[] = [];
  for (let v = field << 3; ; v >>>= 7) {
    if (v < 0x80) {
      tag.push(v);
      break;
    }
    tag.push((v & 0x7f) | 0x80);
  }
  return new Uint8Array([...tag, 1]);
}

/** The byte offset of record `i` in frames laid end to end. */
export function recordOffset(frames: Uint8Array[], i: number): number {
  return frames.slice(0, i).reduce((a, f) => a + f.length, 0);
}

const bytes = (s: string) => new TextEncoder().encode(s);
/** `note` on `long` (2,000 characters: the server cuts it at 1,024) and `label` on `y` (300: past the page's preview). */
export const LONG_NOTE = 'n'.repeat(2000);
export const LABEL = `${'label-'.repeat(50)}`;

/**
 * An event file with one graph (step 3) and one tagged_run_metadata record (`step7`, step 7) holding step stats and
 * memory for node `y`: x → long, and x, w → y (MatMul on /device:CPU:0).
 */
export function detailsEventFile(): Uint8Array {
  const graph = graphDef({
    node: [
      { name: 'x', op: 'Placeholder', attr: { dtype: { type: 1 }, shape: { shape: { dim: [{ size: 2 }, { size: 4 }] } } } },
      { name: 'w', op: 'Const', attr: { dtype: { type: 1 }, value: { tensor: { dtype: 1, tensor_shape: { dim: [{ size: 4 }, { size: 3 }] }, float_val: [0.5] } } } },
      { name: 'long', op: 'Identity', input: ['x'], attr: { T: { type: 1 }, note: { s: bytes(LONG_NOTE) } } },
      {
        name: 'y',
        op: 'MatMul',
        input: ['x', 'w'],
        device: '/device:CPU:0',
        attr: { T: { type: 1 }, transpose_a: { b: false }, transpose_b: { b: false }, label: { s: bytes(LABEL) } },
      },
    ],
    versions: { producer: 1 },
  });
  const rm = runMetadata({
    step_stats: {
      dev_stats: [
        {
          device: '/job:localhost/replica:0/task:0/device:CPU:0',
          node_stats: [
            {
              node_name: 'y',
              all_start_micros: 1000,
              op_start_rel_micros: 2,
              op_end_rel_micros: 42,
              all_end_rel_micros: 50,
              memory: [{ allocator_name: 'cpu', total_bytes: 4096, peak_bytes: 8192, live_bytes: 1024 }],
              output: [{ slot: 0, tensor_description: { dtype: 1, shape: { dim: [{ size: 2 }, { size: 3 }] } } }],
              timeline_label: 'y = MatMul(x, w)',
            },
          ],
        },
      ],
    },
  });
  return concat([
    frame(event({ wall_time: 1, file_version: 'brain.Event:2' })),
    frame(event({ wall_time: 2, step: 3, graph_def: graph })),
    frame(event({ wall_time: 3, step: 7, tagged_run_metadata: { tag: 'step7', run_metadata: rm } })),
  ]);
}
