/**
 * TensorBoard event files (`events.out.tfevents.*`): one scan lists the graphs and run metadata a file carries,
 * peeking at each Event's field tags so summaries (scalars, images, histograms) are skipped undecoded; a graph is
 * decoded only when asked for, by re-reading its record.
 */
import { decodeAs, tbType, type EventMsg, type GraphDefMsg, type RunMetadataMsg } from './protos.js';
import { forEachTfRecord, readTfRecordAt, type ByteSource } from './tfRecord.js';
import { TbFormatError } from './tbError.js';

export type EventGraphKind = 'graph_def' | 'meta_graph_def';

export interface EventGraphEntry {
  /** Unique in the file: `graph_def`, then `graph_def_1`…; `meta_graph_def`, `meta_graph_def_1`… */
  tag: string;
  kind: EventGraphKind;
  step: number;
  wallTime: number;
  recordOffset: number;
}

export interface EventRunMetadataEntry {
  tag: string;
  step: number;
  wallTime: number;
  recordOffset: number;
}

export interface EventFileIndex {
  /** Good records read (all kinds), up to the first damaged one. */
  records: number;
  /** Offset just past the last good record: a later scan of the grown file resumes there (`startOffset`). */
  nextOffset: number;
  fileVersion: string | null;
  graphs: EventGraphEntry[];
  runMetadata: EventRunMetadataEntry[];
  /** The damage that stopped the scan (records before it are listed above), or null. */
  error: TbFormatError | null;
}

// Event field numbers (tensorboard/compat/proto/event.proto).
const WALL_TIME = 1;
const STEP = 2;
const FILE_VERSION = 3;
const GRAPH_DEF = 4;
const TAGGED_RUN_METADATA = 8;
const META_GRAPH_DEF = 9;

interface Peek {
  /** Offset of wall_time's 8 bytes in the record, -1 when absent. */
  wallTimeAt: number;
  step: number;
  what: number;
}

// Cursor of `varint` (module state, so peeking allocates nothing per record).
let at = 0;

function varint(d: Uint8Array): number {
  let v = 0;
  let mul = 1;
  for (;;) {
    if (at >= d.length) throw new Error('truncated varint');
    const b = d[at++];
    v += (b & 0x7f) * mul;
    if (b < 0x80) return v;
    mul *= 128;
    if (mul > 2 ** 70) throw new Error('varint too long');
  }
}

/**
 * Which `what` member an Event holds, and where its wall_time / step are, skipping every field's bytes. Hand-rolled,
 * allocation-free: it runs once per scalar of a file that may hold millions.
 */
function peekEvent(d: Uint8Array, p: Peek): void {
  p.what = 0;
  p.wallTimeAt = -1;
  p.step = 0;
  at = 0;
  while (at < d.length) {
    const tag = varint(d);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === WALL_TIME && wire === 1) p.wallTimeAt = at;
    else if (field === STEP && wire === 0) {
      const v = varint(d);
      p.step = v >= 2 ** 63 ? v - 2 ** 64 : v; // int64 two's complement
      continue;
    }
    // Fields 3-9 are the `what` oneof; 10 (source_metadata) may follow file_version.
    if (field >= FILE_VERSION && field <= META_GRAPH_DEF) p.what = field;
    if (wire === 0) varint(d);
    else if (wire === 1) at += 8;
    else if (wire === 2) {
      const n = varint(d); // read before `at +=` takes at's value
      at += n;
    } else if (wire === 5) at += 4;
    else throw new Error(`invalid wire type ${wire}`);
    if (at > d.length) throw new Error('field runs past the end');
  }
}

function wallTime(d: Uint8Array, p: Peek): number {
  return p.wallTimeAt < 0 ? 0 : new DataView(d.buffer, d.byteOffset + p.wallTimeAt, 8).getFloat64(0, true);
}

function uniqueTag(base: string, taken: Set<string>): string {
  let tag = base;
  for (let k = 1; taken.has(tag); k++) tag = `${base}_${k}`;
  taken.add(tag);
  return tag;
}

/** `chunkSize`: bytes read at a time (tfRecord.ts); a caller sharing its thread yields between chunks. */
export async function scanEventFile(source: ByteSource, opts: { startOffset?: number; chunkSize?: number } = {}): Promise<EventFileIndex> {
  const index: EventFileIndex = {
    records: 0,
    nextOffset: opts.startOffset ?? 0,
    fileVersion: null,
    graphs: [],
    runMetadata: [],
    error: null,
  };
  const tags = new Set<string>();
  const eventType = tbType('Event');
  const p: Peek = { wallTimeAt: -1, step: 0, what: 0 };
  try {
    await forEachTfRecord(source, (rec) => {
      try {
        peekEvent(rec.data, p);
      } catch (e) {
        throw new TbFormatError(`record at offset ${rec.offset} is not an Event: ${(e as Error).message}`, {
          offset: rec.offset,
        });
      }
      index.records++;
      index.nextOffset = rec.offset + rec.data.length + 16;
      if (p.what === GRAPH_DEF || p.what === META_GRAPH_DEF) {
        const kind: EventGraphKind = p.what === GRAPH_DEF ? 'graph_def' : 'meta_graph_def';
        index.graphs.push({
          tag: uniqueTag(kind, tags),
          kind,
          step: p.step,
          wallTime: wallTime(rec.data, p),
          recordOffset: rec.offset,
        });
      } else if (p.what === TAGGED_RUN_METADATA) {
        const ev = decodeAs<EventMsg>(eventType, rec.data);
        index.runMetadata.push({
          tag: ev.tagged_run_metadata?.tag ?? '',
          step: p.step,
          wallTime: wallTime(rec.data, p),
          recordOffset: rec.offset,
        });
      } else if (p.what === FILE_VERSION && index.fileVersion === null) {
        index.fileVersion = decodeAs<EventMsg>(eventType, rec.data).file_version ?? '';
      }
    }, { startOffset: opts.startOffset, chunkSize: opts.chunkSize });
  } catch (e) {
    if (!(e instanceof TbFormatError)) throw e;
    index.error = e;
  }
  return index;
}

async function readEvent(source: ByteSource, offset: number): Promise<{ ev: EventMsg; data: Uint8Array }> {
  const rec = await readTfRecordAt(source, offset);
  try {
    return { ev: decodeAs<EventMsg>(tbType('Event'), rec.data), data: rec.data };
  } catch (e) {
    throw new TbFormatError(`record at offset ${offset} is not an Event: ${(e as Error).message}`, { offset });
  }
}

/**
 * A `graph_def` record's GraphDef bytes, undecoded (a view into the record), and their offset in the file (-1 if not
 * known): the wire reader (graphDefWire.ts) reads them, the disk cache re-reads them from there.
 */
export async function readEventGraphDefBytes(source: ByteSource, entry: EventGraphEntry): Promise<{ bytes: Uint8Array; offset: number }> {
  const { ev, data } = await readEvent(source, entry.recordOffset);
  const bytes = ev.graph_def ?? new Uint8Array(0);
  // A record's data starts 12 bytes in (length, its CRC); protobufjs hands out bytes fields as views into it.
  const offset = bytes.buffer === data.buffer && bytes.length > 0 ? entry.recordOffset + 12 + bytes.byteOffset - data.byteOffset : -1;
  return { bytes, offset };
}

/** Decodes the GraphDef bytes of a `graph_def` entry, naming the record when they are damaged. */
export function decodeEventGraphDef(bytes: Uint8Array, entry: EventGraphEntry): GraphDefMsg {
  try {
    return decodeAs<GraphDefMsg>(tbType('GraphDef'), bytes);
  } catch (e) {
    throw new TbFormatError(`${entry.kind} at offset ${entry.recordOffset} is not a GraphDef: ${(e as Error).message}`, {
      offset: entry.recordOffset,
    });
  }
}

/** Decodes the GraphDef of a graph found by `scanEventFile` (a meta_graph_def's embedded graph_def). */
export async function readEventGraph(source: ByteSource, entry: EventGraphEntry): Promise<GraphDefMsg> {
  if (entry.kind === 'graph_def') return decodeEventGraphDef((await readEventGraphDefBytes(source, entry)).bytes, entry);
  const { ev } = await readEvent(source, entry.recordOffset);
  const offset = entry.recordOffset;
  try {
    const meta = decodeAs<{ graph_def?: GraphDefMsg }>(tbType('MetaGraphDef'), ev.meta_graph_def ?? new Uint8Array(0));
    return meta.graph_def ?? {};
  } catch (e) {
    throw new TbFormatError(`${entry.kind} at offset ${offset} is not a GraphDef: ${(e as Error).message}`, {
      offset,
    });
  }
}

export async function readEventRunMetadata(source: ByteSource, entry: EventRunMetadataEntry): Promise<RunMetadataMsg> {
  const { ev } = await readEvent(source, entry.recordOffset);
  try {
    return decodeAs<RunMetadataMsg>(tbType('RunMetadata'), ev.tagged_run_metadata?.run_metadata ?? new Uint8Array(0));
  } catch (e) {
    throw new TbFormatError(`run metadata at offset ${entry.recordOffset} is not a RunMetadata: ${(e as Error).message}`, {
      offset: entry.recordOffset,
    });
  }
}
