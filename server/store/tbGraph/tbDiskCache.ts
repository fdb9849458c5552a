import { readDerived, writeDerived } from '../derivedCache.js';
import type { FileStamp } from '../visJsonIndex/visIndex.js';
import { PACKED_ARRAYS, packedArrays, packedFromArrays, stringTable, type PackedTbHierarchy, type StringTable } from '../../../src/core/tbgraph/packed.js';
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
  if (a.length !== PACKED_ARRAYS + (wire ? 4 : 2) || (h.format !== 'graphdef' && h.format !== 'onnx') || !Array.isArray(h.problems)) return null;
  if (typeof h.meta !== 'object' || h.meta === null || typeof h.graphOffset !== 'number' || typeof h.graphLength !== 'number') return null;
  const packed = packedFromArrays(a.slice(0, PACKED_ARRAYS), { format: h.format, meta: h.meta, problems: h.problems });
  if (!packed) return null;
  const ops = packed.opNode.length;
  const [first, second, inputStart, inputSource] = a.slice(PACKED_ARRAYS);
  if (!wire) {
    const json = stringTable(first, second, ops);
    return json ? { packed, details: { json } } : null;
  }
  if (!(first instanceof Uint32Array) || !(second instanceof Uint32Array) || !(inputStart instanceof Uint32Array) || !(inputSource instanceof Int32Array)) return null;
  if (first.length !== ops || second.length !== ops || inputStart.length !== ops + 1 || inputStart[ops] !== inputSource.length) return null;
  return { packed, details: { wire: { nodeStart: first, nodeEnd: second, inputStart, inputSource }, graphOffset: h.graphOffset, graphLength: h.graphLength } };
}
