import { readDerived, writeDerived, type TypedArray } from '../derivedCache.js';
import type { FileStamp } from '../visJsonIndex/visIndex.js';
import { packedArrays, type PackedTbHierarchy, type StringTable } from '../../../src/core/tbgraph/packed.js';
import type { WireDetails } from '../../../src/core/formats/tb/graphDefWire.js';

/**
 * A TensorBoard graph's packed hierarchy kept in the cache directory (derivedCache.ts: keyed by the file and graph,
 * valid while the file's size, mtime and inode are those it was built from), so a restarted server opens a 10^5-node
 * GraphDef without decoding it again (issue 16). The op details come along: the JSON table of an object-decoded graph,
 * or, for a binary GraphDef read off the wire (graphDefWire.ts), where its NodeDefs are and where the GraphDef's
 * bytes are in the file, which are read again (not decoded) on a hit. A damaged or foreign file reads as a miss.
 */

/** A new layout is a new kind; the old kind's files age out of the cache (derivedCache.ts). */
const KIND = 'tb-graph-v1';

/** Op details as they travel from the decoding worker and are kept: packOpDetails's table, or a wire GraphDef's. */
export type TbDetailsData = { json: StringTable } | { wire: WireDetails; graphOffset: number };

export interface TbCacheKey {
  cacheDir: string;
  maxBytes?: number;
  absPath: string;
  /** The event file's graph tag; '' for its first graph and for GraphDef / ONNX files. */
  graph: string;
  stamp: FileStamp;
}

interface Header {
  format: PackedTbHierarchy['format'];
  meta: PackedTbHierarchy['meta'];
  problems: string[];
  /** 'wire': the GraphDef's bytes are file[graphOffset, graphOffset + graphLength). */
  details: 'json' | 'wire';
  graphOffset: number;
  graphLength: number;
}


/** Writes the entry; throws (ENOSPC, EACCES…) for the caller to log. */
export function writeTbCache(key: TbCacheKey, packed: PackedTbHierarchy, details: TbDetailsData): void {
  const wire = 'wire' in details ? details : null;
  const header: Header = {
    format: packed.format,
    meta: packed.meta,
    problems: packed.problems,
    details: wire ? 'wire' : 'json',
    graphOffset: wire ? wire.graphOffset : 0,
    graphLength: wire ? wire.wire.graph.length : 0,
  };
  const extra = wire
    ? [wire.wire.nodeStart, wire.wire.nodeEnd, wire.wire.inputStart, wire.wire.inputSource]
    : [(details as { json: StringTable }).json.bytes, (details as { json: StringTable }).json.end];
  writeDerived(key.cacheDir, KIND, key.absPath, key.graph, key.stamp, { ...header }, [...packedArrays(packed), ...extra], key.maxBytes);
}

export interface TbCacheHit {
  packed: PackedTbHierarchy;
  /** The JSON table, or a wire graph's arrays and where its bytes are (the caller reads them). */
  details: { json: StringTable } | { wire: Omit<WireDetails, 'graph'>; graphOffset: number; graphLength: number };
}

/** The entry for the file at this stamp, or null (absent, stale, damaged, of another layout). */
export function readTbCache(key: TbCacheKey): TbCacheHit | null {
  const hit = readDerived(key.cacheDir, KIND, key.absPath, key.graph, key.stamp);
  if (!hit) return null;
  const h = hit.header as Partial<Header>;
  const a = hit.arrays;
  const wire = h.details === 'wire';
  const PACKED = 20;
  if (a.length !== PACKED + (wire ? 4 : 2) || (h.format !== 'graphdef' && h.format !== 'onnx') || !Array.isArray(h.problems)) return null;
  if (typeof h.meta !== 'object' || h.meta === null || typeof h.graphOffset !== 'number' || typeof h.graphLength !== 'number') return null;
  const [idsBytes, idsEnd, labelsBytes, labelsEnd, edgeStart, edgeFrom, edgeTo, edgeData, edgeControl, edgeLabels, textBytes, textEnd] = a;
  const [kind, parent, childStart, childList, op, opCount, opNode, hash] = a.slice(12, PACKED);
  const is = <T>(x: unknown, ctor: new (n: number) => T): x is T => x instanceof ctor;
  const table = (bytes: TypedArray, end: TypedArray, count: number): StringTable | null =>
    is(bytes, Uint8Array) && is(end, Uint32Array) && end.length === count && (count === 0 || end[count - 1] === bytes.length) ? { bytes, end } : null;
  const n = kind.length;
  const ids = table(idsBytes, idsEnd, n);
  const labels = table(labelsBytes, labelsEnd, n);
  const edgeLabelText = is(textEnd, Uint32Array) ? table(textBytes, textEnd, textEnd.length) : null;
  if (!ids || !labels || !edgeLabelText || !is(kind, Uint8Array) || n === 0) return null;
  if (!is(edgeStart, Uint32Array) || !is(edgeFrom, Int32Array) || !is(edgeTo, Int32Array) || !is(edgeData, Int32Array) || !is(edgeControl, Int32Array) || !is(edgeLabels, Int32Array)) return null;
  const edges = edgeFrom.length;
  if (edgeStart.length !== n + 1 || edgeStart[n] !== edges || edgeTo.length !== edges || edgeData.length !== edges || edgeControl.length !== edges || edgeLabels.length !== edges * 3) return null;
  if (!is(parent, Int32Array) || !is(childStart, Uint32Array) || !is(childList, Int32Array) || !is(op, Int32Array) || !is(opCount, Int32Array) || !is(opNode, Int32Array) || !is(hash, Int32Array)) return null;
  if (parent.length !== n || childStart.length !== n + 1 || childList.length !== n - 1 || op.length !== n || opCount.length !== n) return null;
  const packed: PackedTbHierarchy = {
    ids, labels, edgeStart, edgeFrom, edgeTo, edgeData, edgeControl, edgeLabels, edgeLabelText,
    kind, parent, childStart, childList, op, opCount, opNode, hash, format: h.format, meta: h.meta, problems: h.problems,
  };
  const ops = opNode.length;
  if (!wire) {
    const json = table(a[PACKED], a[PACKED + 1], ops);
    return json ? { packed, details: { json } } : null;
  }
  const [nodeStart, nodeEnd, inputStart, inputSource] = a.slice(PACKED);
  if (!is(nodeStart, Uint32Array) || !is(nodeEnd, Uint32Array) || !is(inputStart, Uint32Array) || !is(inputSource, Int32Array)) return null;
  if (nodeStart.length !== ops || nodeEnd.length !== ops || inputStart.length !== ops + 1 || inputStart[ops] !== inputSource.length) return null;
  return { packed, details: { wire: { nodeStart, nodeEnd, inputStart, inputSource }, graphOffset: h.graphOffset, graphLength: h.graphLength } };
}
