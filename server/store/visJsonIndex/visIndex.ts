import type { GraphType } from '../../../src/core/api/types.js';

/**
 * The compact index of one `.vis` file (issue 4): per side, columns of typed arrays over "entries" (every member of
 * the side's `node` object, in file order) plus one byte table of ids. A node's full record stays in the file and is
 * read by its byte range on demand. Entries that are not nodes (a repeated id's earlier copy, a non-object value)
 * are kept but marked dead, so entry numbers stay file positions.
 */

/** 3: the `rated` column (issue 14); issue 12's `up` column, which nothing read, dropped. */
export const INDEX_FORMAT_VERSION = 3;
/** `micro` column value for "no micro_step_id". */
export const NO_MICRO = -2147483648;
/** `linkLen` column value for "no matched_node_link key". */
export const NO_LINK = 0;

export interface SideIndex {
  /** Entry of the root node. */
  rootIdx: number;
  /** Live nodes (what a whole-file parse would hold in its `node` map). */
  nodeCount: number;
  idBytes: Uint8Array;
  /** Entry i's id is idBytes[idOffsets[i] .. idOffsets[i+1]) (UTF-8). */
  idOffsets: Uint32Array;
  /** Open addressing over ids: slot → entry, -1 empty. Length is a power of two. */
  hash: Int32Array;
  alive: Uint8Array;
  /** toInt(node_type) ?? 0. */
  nodeType: Int32Array;
  /** data.precision_index as a number; NaN when absent or not a finite number. */
  precision: Float64Array;
  /** Index into overflowNames + 1; 0 = no overflow_level string. */
  overflow: Uint8Array;
  /** micro_step_id, NO_MICRO when absent or not an integer. */
  micro: Int32Array;
  /** File offset and byte length of the node's object `{…}`. */
  start: Float64Array;
  length: Uint32Array;
  /** The matched_node_link value's bytes, relative to `start`; linkLen 0 = no such key. */
  linkOff: Uint32Array;
  linkLen: Uint32Array;
  /** String elements in matched_node_link (0 = unmatched), for the unmatched filter without reading the file. */
  linkCount: Uint32Array;
  /** Children (deduplicated, dangling ids dropped, file order) of entry i: children[childStart[i] .. childStart[i+1]). */
  childStart: Uint32Array;
  children: Int32Array;
  /** Parent from walking `subnodes` down from the root; -1 for the root and unreachable entries. */
  parent: Int32Array;
  /** Live entries in execution order: pre-order from the root, then unreachable nodes in file order. */
  preorder: Int32Array;
  /**
   * The worst table's list (worstQuery.ts): entries with a finite precision in the order outputs are produced (the
   * post-order of the tree, then unreachable nodes in file order). Built with the index, so that a reopened file
   * answers its first page without walking 10^6 nodes (bench/triage.mjs).
   */
  rated: Int32Array;
  overflowNames: string[];
}

export interface VisIndex {
  version: number;
  graphType: GraphType;
  sides: { npu?: SideIndex; bench?: SideIndex };
  /** Raw JSON text of the top-level meta keys present (ToolTip, Colors, MicroSteps, task, OverflowCheck). */
  metaText: Record<string, string>;
  /** What the file looked like when indexed: the index is valid only while these hold. */
  stamp: FileStamp;
}

export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

export function hashBytes(b: Uint8Array, s: number, e: number): number {
  // FNV-1a: one multiply per byte, no allocation; ids are short.
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) {
    h ^= b[i];
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function sameBytes(a: Uint8Array, as: number, ae: number, b: Uint8Array, bs: number, be: number): boolean {
  if (ae - as !== be - bs) return false;
  for (let i = 0; i < ae - as; i++) if (a[as + i] !== b[bs + i]) return false;
  return true;
}

/** Entry of the id given as UTF-8 bytes, or -1. */
export function lookupBytes(side: Pick<SideIndex, 'hash' | 'idBytes' | 'idOffsets'>, b: Uint8Array, s: number, e: number): number {
  const mask = side.hash.length - 1;
  let slot = hashBytes(b, s, e) & mask;
  for (;;) {
    const entry = side.hash[slot];
    if (entry < 0) return -1;
    if (sameBytes(side.idBytes, side.idOffsets[entry], side.idOffsets[entry + 1], b, s, e)) return entry;
    slot = (slot + 1) & mask;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** The live node with this id, or -1. */
export function lookupId(side: SideIndex, id: string): number {
  const bytes = encoder.encode(id);
  const entry = lookupBytes(side, bytes, 0, bytes.length);
  return entry >= 0 && side.alive[entry] ? entry : -1;
}

export function idOf(side: SideIndex, entry: number): string {
  return decoder.decode(side.idBytes.subarray(side.idOffsets[entry], side.idOffsets[entry + 1]));
}

export function childCount(side: SideIndex, entry: number): number {
  return side.childStart[entry + 1] - side.childStart[entry];
}
