import { kindOf, type ArrayKind } from '../packedFile.js';
import { INDEX_FORMAT_VERSION, type FileStamp, type SideIndex, type VisIndex } from './visIndex.js';

/**
 * A VisIndex as one small JSON header plus a list of typed arrays: the form that crosses the worker boundary
 * (arrays transferred, not copied) and that the cache file stores (arrays written back to back, 8-byte aligned).
 */

const ARRAY_FIELDS = [
  'idBytes',
  'idOffsets',
  'hash',
  'alive',
  'nodeType',
  'precision',
  'overflow',
  'micro',
  'start',
  'length',
  'linkOff',
  'linkLen',
  'linkCount',
  'childStart',
  'children',
  'parent',
  'preorder',
  'rated',
] as const satisfies ReadonlyArray<keyof SideIndex>;

type ArrayField = (typeof ARRAY_FIELDS)[number];
type TypedArray = SideIndex[ArrayField];
export interface ArraySpec {
  field: ArrayField;
  kind: ArrayKind;
  length: number;
}
export interface SideHeader {
  rootIdx: number;
  nodeCount: number;
  overflowNames: string[];
  arrays: ArraySpec[];
}
export interface IndexHeader {
  version: number;
  graphType: VisIndex['graphType'];
  metaText: Record<string, string>;
  stamp: FileStamp;
  sides: { npu?: SideHeader; bench?: SideHeader };
}
export interface PackedIndex {
  header: IndexHeader;
  /** Side arrays in header order: npu's then bench's. */
  arrays: TypedArray[];
}

export function packIndex(index: VisIndex): PackedIndex {
  const arrays: TypedArray[] = [];
  const sides: IndexHeader['sides'] = {};
  for (const name of ['npu', 'bench'] as const) {
    const side = index.sides[name];
    if (!side) continue;
    sides[name] = {
      rootIdx: side.rootIdx,
      nodeCount: side.nodeCount,
      overflowNames: side.overflowNames,
      arrays: ARRAY_FIELDS.map((field) => {
        arrays.push(side[field]);
        return { field, kind: kindOf(side[field]), length: side[field].length };
      }),
    };
  }
  return {
    header: { version: index.version, graphType: index.graphType, metaText: index.metaText, stamp: index.stamp, sides },
    arrays,
  };
}

/** Rebuilds the index from a header and arrays in the same order; throws when they do not fit together. */
export function unpackIndex(packed: PackedIndex): VisIndex {
  const { header, arrays } = packed;
  if (header.version !== INDEX_FORMAT_VERSION) throw new Error(`index format ${header.version}, expected ${INDEX_FORMAT_VERSION}`);
  let k = 0;
  const sides: VisIndex['sides'] = {};
  for (const name of ['npu', 'bench'] as const) {
    const h = header.sides[name];
    if (!h) continue;
    const side = { rootIdx: h.rootIdx, nodeCount: h.nodeCount, overflowNames: h.overflowNames } as SideIndex;
    for (const spec of h.arrays) {
      const a = arrays[k++];
      if (!a || kindOf(a) !== spec.kind || a.length !== spec.length) throw new Error(`index array ${spec.field} does not match`);
      (side as unknown as Record<string, TypedArray>)[spec.field] = a;
    }
    for (const field of ARRAY_FIELDS) if (!side[field]) throw new Error(`index array ${field} is missing`);
    sides[name] = side;
  }
  return { version: header.version, graphType: header.graphType, metaText: header.metaText, stamp: header.stamp, sides };
}

/** ArrayBuffers to list as postMessage transfers (each array owns its whole buffer). */
export function transferList(packed: PackedIndex): ArrayBuffer[] {
  return packed.arrays.map((a) => a.buffer as ArrayBuffer);
}
