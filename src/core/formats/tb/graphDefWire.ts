/**
 * A binary GraphDef read straight off the wire with protobufjs's `Reader` into the hierarchy's op table
 * (hierarchy.ts TbOpTable), for the 10^5-node graphs of issue 16: decoding whole message objects and formatting
 * every attribute up front took ~5 s, ~40% of it in GC (bench/results/tb.md). Only what the structure needs is read:
 * names, op types, inputs and the dtype / `_output_shapes` attributes that label edges. Each NodeDef is kept as its
 * byte range, and a node's details decode that one NodeDef with protobufjs when asked (`WireOpDetails`), through the
 * same code as graphDefToGraph, so both answer alike. A GraphDef whose library holds functions, or anything this walk
 * does not expect, goes the object way (graphDef.ts) instead: `readGraphDefWire` answers null.
 */
import protobuf from 'protobufjs';
import { Interner, type TbOpTable } from '../../tbgraph/hierarchy.js';
import { OpIds, scopePath, tensorLabel, type TbInput } from '../../tbgraph/opGraph.js';
import type { TbOpDetail, TbOpDetailSource } from '../../tbgraph/packed.js';
import { calledFunctions, outputInfos, parseTfInput, tfAttrs } from './graphDef.js';
import { decodeAs, tbType, type AttrValueMsg, type NodeDefMsg } from './protos.js';

/** What a node's details are read from: the GraphDef's bytes and each node's NodeDef in them. */
export interface WireDetails {
  graph: Uint8Array;
  /** Op k's NodeDef is graph[nodeStart[k], nodeEnd[k]). */
  nodeStart: Uint32Array;
  nodeEnd: Uint32Array;
  /** Op k's resolved inputs, as in TbOpTable (the same arrays). */
  inputStart: Uint32Array;
  inputSource: Int32Array;
}

export interface WireGraph {
  table: TbOpTable;
  details: WireDetails;
}

const LEN = 2;
// GraphDef / NodeDef / map entry field numbers (tensorboard.proto).
const G_NODE = 1;
const G_LIBRARY = 2;
const G_VERSIONS = 4;
const N_NAME = 1;
const N_OP = 2;
const N_INPUT = 3;
const N_ATTR = 5;

/** The attributes that describe a node's outputs (graphDef.ts outputInfos), as UTF-8 bytes of their keys. */
const WANTED = ['_output_shapes', 'T', 'dtype', 'DstT'].map((k) => new TextEncoder().encode(k));

function wantedKey(b: Uint8Array, start: number, end: number): number {
  outer: for (let w = 0; w < WANTED.length; w++) {
    const key = WANTED[w];
    if (key.length !== end - start) continue;
    for (let i = 0; i < key.length; i++) if (b[start + i] !== key[i]) continue outer;
    return w;
  }
  return -1;
}

/** Reads a length prefix and checks that the field fits; the reader is left at the field's first byte. */
function lengthDelimited(r: protobuf.Reader, wire: number): number {
  if (wire !== LEN) throw new Error(`unexpected wire type ${wire}`);
  const end = r.uint32() + r.pos;
  if (end > r.len) throw new Error('index out of range');
  return end;
}

/**
 * The op table and details of a binary GraphDef without a function library; null when it has one or when the bytes
 * are not what this walk expects (damage included: the object decoder then words the error).
 */
export function readGraphDefWire(bytes: Uint8Array): WireGraph | null {
  try {
    return walk(bytes);
  } catch {
    return null;
  }
}

function walk(bytes: Uint8Array): WireGraph | null {
  const r = protobuf.Reader.create(bytes);
  // Node's Buffer slices ASCII natively, 3× faster than a TextDecoder call per short string.
  const slice = (bytes as Uint8Array & { latin1Slice?(start: number, end: number): string }).latin1Slice;
  const ascii = slice ? (start: number, end: number) => slice.call(bytes, start, end) : (start: number, end: number) => latin1.decode(bytes.subarray(start, end));
  const starts: number[] = [];
  const ends: number[] = [];
  const names: string[] = [];
  const types: string[] = [];
  const typeOf = new Map<string, string>();
  /** Per input, flat: the raw text, then its parse. */
  const rawInputs: string[] = [];
  const inputCounts: number[] = [];
  /** Per op, its outputs' tensor labels (indexes into `labels`), flat from outStart. */
  const outStart: number[] = [];
  const outLabel: number[] = [];
  const labels = new Interner();
  let producer: number | undefined;
  let functions = 0;
  const attrValue = tbType('AttrValue');
  // Identical attribute values (the same shapes and dtype) repeat through a graph: their labels are made once, found
  // by a hash of the values' bytes.
  const labelsOf = new Map<number, Array<{ shapes: [number, number]; dtype: [number, number]; dtypeAbsent: boolean; out: number[] }>>();

  while (r.pos < r.len) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === G_LIBRARY) {
      // TensorFlow writes an empty `library {}` into most graphs: only functions need the object way. The last one
      // read is the one that counts (protobufjs replaces a message field read again).
      const end = lengthDelimited(r, wire);
      functions = decodeAs<{ function?: unknown[] }>(tbType('FunctionDefLibrary'), bytes.subarray(r.pos, end)).function?.length ?? 0;
      r.pos = end;
      continue;
    }
    if (field === G_VERSIONS) {
      // A message field read again replaces the earlier one (protobufjs), so the last `versions` says the producer.
      const end = lengthDelimited(r, wire);
      producer = undefined;
      while (r.pos < end) {
        const t = r.uint32();
        if (t >>> 3 === 1 && (t & 7) === 0) producer = r.int32();
        else r.skipType(t & 7);
      }
      if (r.pos !== end) throw new Error('index out of range');
      continue;
    }
    if (field !== G_NODE) {
      r.skipType(wire);
      continue;
    }
    const end = lengthDelimited(r, wire);
    const start = r.pos;
    const outer = r.len;
    r.len = end;
    let name = '';
    let type = '';
    let inputs = 0;
    // Value ranges of the wanted attributes, by WANTED index: [start, end), or [-1, -1] for an entry without a value.
    const attr: Array<[number, number] | undefined> = [undefined, undefined, undefined, undefined];
    while (r.pos < end) {
      const t = r.uint32();
      const f = t >>> 3;
      if (f === N_NAME || f === N_OP || f === N_INPUT) {
        const e = lengthDelimited(r, t & 7);
        const s = text(bytes, r.pos, e, ascii);
        r.pos = e;
        if (f === N_NAME) name = s;
        else if (f === N_OP) type = s;
        else {
          rawInputs.push(s);
          inputs++;
        }
      } else if (f === N_ATTR) {
        const entryEnd = lengthDelimited(r, t & 7);
        let key = -2;
        let value: [number, number] = [-1, -1];
        while (r.pos < entryEnd) {
          const e = r.uint32();
          if (e >>> 3 === 1) {
            const ke = lengthDelimited(r, e & 7);
            key = wantedKey(bytes, r.pos, ke);
            r.pos = ke;
          } else if (e >>> 3 === 2) {
            const ve = lengthDelimited(r, e & 7);
            value = [r.pos, ve];
            r.pos = ve;
          } else r.skipType(e & 7);
        }
        if (r.pos !== entryEnd) throw new Error('index out of range');
        // A map entry without a key has the key "" (protobufjs), which is none of the wanted ones.
        if (key >= 0) attr[key] = value;
      } else r.skipType(t & 7);
    }
    if (r.pos !== end) throw new Error('index out of range');
    r.len = outer;

    starts.push(start);
    ends.push(end);
    names.push(name);
    let interned = typeOf.get(type);
    if (interned === undefined) typeOf.set(type, (interned = type));
    types.push(interned);
    inputCounts.push(inputs);
    outStart.push(outLabel.length);
    const shapes = attr[0];
    const dtype = [attr[1], attr[2], attr[3]].find((a) => a && a[0] >= 0);
    if ((shapes && shapes[0] >= 0) || dtype) {
      const sh: [number, number] = shapes && shapes[0] >= 0 ? shapes : [0, 0];
      const dt: [number, number] = dtype ?? [0, 0];
      const h = Math.imul(fnv1a(bytes, sh[0], sh[1], fnv1a(bytes, dt[0], dt[1], 0x811c9dc5)), dtype ? 1 : 3) >>> 0;
      const known = labelsOf.get(h);
      let out = known?.find((o) => same(bytes, o.shapes, sh) && same(bytes, o.dtype, dt) && !o.dtypeAbsent === !!dtype)?.out;
      if (!out) {
        // The one reading of these attributes, graphDef.ts outputInfos, on the two values protobufjs decodes.
        const decoded: Record<string, AttrValueMsg> = {};
        if (sh[1] > 0) decoded._output_shapes = decodeAs<AttrValueMsg>(attrValue, bytes.subarray(sh[0], sh[1]));
        if (dtype) decoded.T = decodeAs<AttrValueMsg>(attrValue, bytes.subarray(dt[0], dt[1]));
        out = outputInfos(decoded).map((o) => labels.of(tensorLabel(o)));
        const entry = { shapes: sh, dtype: dt, dtypeAbsent: !dtype, out };
        if (known) known.push(entry);
        else labelsOf.set(h, [entry]);
      }
      for (const l of out) outLabel.push(l);
    }
  }
  outStart.push(outLabel.length);
  if (functions > 0) return null;

  // Inputs resolve to ops once all are read (an input may name a later node), as graphDefToGraph resolves them.
  const n = names.length;
  // Name → its op; names a file repeats → all their ops, in `repeated` (few: no array per name).
  const byName = new Map<string, number>();
  const repeated = new Map<string, number[]>();
  for (let k = 0; k < n; k++) {
    const first = byName.get(names[k]);
    if (first === undefined) byName.set(names[k], k);
    else {
      const all = repeated.get(names[k]);
      if (all) all.push(k);
      else repeated.set(names[k], [first, k]);
    }
  }
  // Unique names are their ids; a file that repeats one gets OpIds's suffixes.
  const ids = new OpIds();
  const opIds = repeated.size === 0 ? names : names.map((name) => ids.claim(name));
  const inputStart = new Uint32Array(n + 1);
  const inputSource = new Int32Array(rawInputs.length);
  const inputControl = new Uint8Array(rawInputs.length);
  const inputLabel = new Int32Array(rawInputs.length);
  const problems: string[] = [];
  let j = 0;
  for (let k = 0; k < n; k++) {
    inputStart[k] = j;
    for (const stop = j + inputCounts[k]; j < stop; j++) {
      const raw = rawInputs[j];
      // parseTfInput, without its object: `^` control, the node before the first ':', the output after the last.
      const control = raw.charCodeAt(0) === 94;
      const from = control ? 1 : 0;
      const colon = raw.indexOf(':', from);
      const node = colon < 0 ? (control ? raw.slice(1) : raw) : raw.slice(from, colon);
      const last = colon < 0 ? 0 : Number(raw.slice(raw.lastIndexOf(':') + 1));
      const output = Number.isInteger(last) ? last : 0;
      let source = byName.get(node) ?? -1;
      const defs = source >= 0 ? repeated.get(node) : undefined;
      // The latest definition before the consumer, else the first (graphDef.ts definition).
      if (defs) for (const d of defs) if (d < k) source = d;
      if (source < 0) problems.push(`node "${names[k]}": input "${raw}" names no node`);
      inputSource[j] = source;
      inputControl[j] = control ? 1 : 0;
      const at = source < 0 || control ? -1 : outStart[source] + output;
      inputLabel[j] = at >= 0 && output >= 0 && at < outStart[source + 1] ? outLabel[at] : -1;
    }
  }
  inputStart[n] = j;

  const table: TbOpTable = {
    format: 'graphdef',
    meta: producer ? { producer } : {},
    problems,
    ids: opIds,
    paths: names.map((name) => (CLEAN_NAME.test(name) ? name : scopePath(name))),
    types,
    inputStart,
    inputSource,
    inputControl,
    inputLabel,
    labels: labels.list,
  };
  return { table, details: { graph: bytes, nodeStart: Uint32Array.from(starts), nodeEnd: Uint32Array.from(ends), inputStart, inputSource } };
}

const latin1 = new TextDecoder('latin1');

/**
 * A string field's text as protobufjs's Reader makes it (its own UTF-8 decoder: bad bytes read as it reads them),
 * natively when all ASCII, the common case.
 */
function text(b: Uint8Array, start: number, end: number, ascii: (start: number, end: number) => string): string {
  for (let i = start; i < end; i++) if (b[i] >= 0x80) return protobuf.util.utf8.read(b, start, end);
  return ascii(start, end);
}

function fnv1a(b: Uint8Array, start: number, end: number, seed: number): number {
  let h = seed;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h;
}

function same(b: Uint8Array, x: [number, number], y: [number, number]): boolean {
  if (x[1] - x[0] !== y[1] - y[0]) return false;
  for (let i = 0; i < x[1] - x[0]; i++) if (b[x[0] + i] !== b[y[0] + i]) return false;
  return true;
}

/** A name that splits into its scope path with no empty part (hierarchy.ts TbOpTable.paths). */
const CLEAN_NAME = /^[^/]+(\/[^/]+)*$/;

const NO_LIBRARY = new Set<string>();

/** A node's details, decoded from its NodeDef when asked: what graphDefToGraph would have made of it. */
export class WireOpDetails implements TbOpDetailSource {
  constructor(private readonly d: WireDetails) {}

  private node(k: number): NodeDefMsg {
    // A plain Uint8Array view, not a Buffer: protobufjs then decodes strings as it did the whole GraphDef.
    const { graph, nodeStart, nodeEnd } = this.d;
    return decodeAs<NodeDefMsg>(tbType('NodeDef'), new Uint8Array(graph.buffer, graph.byteOffset + nodeStart[k], nodeEnd[k] - nodeStart[k]));
  }

  detail(k: number): TbOpDetail {
    const n = this.node(k);
    const inputs = (n.input ?? []).map((raw, j): TbInput => {
      const { output, control } = parseTfInput(raw);
      const s = this.d.inputSource[this.d.inputStart[k] + j];
      const info = !control && s >= 0 ? (outputInfos(this.node(s).attr)[output] ?? null) : null;
      return { name: raw, source: s < 0 ? null : s, output, control, info: info ? { dtype: info.dtype, shape: info.shape } : null };
    });
    const calls = calledFunctions(n, NO_LIBRARY);
    return { op: n.op ?? '', device: n.device ?? '', attrs: tfAttrs(n), inputs, outputs: outputInfos(n.attr), ...(calls ? { calls } : {}) };
  }
}
