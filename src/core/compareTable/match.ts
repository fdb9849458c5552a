import type { NameSource } from './nameColumn.js';
import { dtypesCompatible } from './dtypeRule.js';
import { NameIndex } from './nameIndex.js';
import type { SideTable } from './sideTable.js';

/**
 * Pairing NPU rows with Bench rows (msprobe-compare.md §3.2–§3.4). The result is the table's row order: a list of
 * (NPU row, Bench row or -1) pairs. Bench-only rows never appear.
 */

export interface MatchedPairs {
  length: number;
  npu: Int32Array;
  bench: Int32Array;
}

export type MatchKind = 'exact' | 'dataMapping' | 'fuzzy';

export interface MatchOptions {
  kind: MatchKind;
  /** The NPU rows' compare keys, one per NPU row (the NPU names themselves when no mapping is active). */
  npuKeys: NameSource;
  /** MindSpore NPU vs PyTorch bench: dtypes compared by kind. */
  crossFramework: boolean;
}

class PairList {
  npu: Int32Array;
  bench: Int32Array;
  length = 0;
  /** `expected`: usually one pair per NPU row. */
  constructor(expected: number) {
    this.npu = new Int32Array(Math.max(16, expected));
    this.bench = new Int32Array(Math.max(16, expected));
  }
  push(n: number, b: number): void {
    if (this.length === this.npu.length) {
      const size = Math.ceil(this.length * 1.5);
      const np = new Int32Array(size);
      np.set(this.npu);
      const bp = new Int32Array(size);
      bp.set(this.bench);
      this.npu = np;
      this.bench = bp;
    }
    this.npu[this.length] = n;
    this.bench[this.length] = b;
    this.length++;
  }
  finish(): MatchedPairs {
    return { length: this.length, npu: this.npu.subarray(0, this.length), bench: this.bench.subarray(0, this.length) };
  }
}

/** Shape ids shared by both sides (each side interns its own), so (name, shape) compares as (bytes, int). */
function sharedShapeIds(npu: SideTable, bench: SideTable): { npu: (row: number) => number; bench: (row: number) => number } {
  const ids = new Map<string, number>();
  const table = (side: SideTable) => {
    const local = new Int32Array(side.shapeCount);
    for (let s = 0; s < local.length; s++) {
      const shape = side.shapeText(s);
      let id = ids.get(shape);
      if (id === undefined) {
        id = ids.size + 1;
        ids.set(shape, id);
      }
      local[s] = id;
    }
    return (row: number) => local[side.shapeId(row)];
  };
  return { npu: table(npu), bench: table(bench) };
}

/**
 * pandas (< 2.1) outer merge on (compare_key, shape), NPU-driven: distinct keys in first-appearance order, each
 * key's NPU rows crossed with its Bench rows; NPU rows without a partner get -1.
 */
function exactPairs(npu: SideTable, bench: SideTable, keys: NameSource, out: PairList): void {
  const shapes = sharedShapeIds(npu, bench);
  const benchIndex = new NameIndex(bench.nameArena, shapes.bench);
  const groups = new NameIndex(keys, shapes.npu);
  const done = new Uint8Array(npu.length);
  for (let i = 0; i < npu.length; i++) {
    if (done[i]) continue;
    const first = benchIndex.first(keys.get(i), shapes.npu(i));
    for (let j = i; j >= 0; j = groups.next[j]) {
      done[j] = 1;
      if (first < 0) out.push(j, -1);
      else for (let b = first; b >= 0; b = benchIndex.next[b]) out.push(j, b);
    }
  }
}

/** pandas left merge on compare_key only (data mapping): NPU order, no shape in the key. */
function leftPairs(npu: SideTable, bench: SideTable, keys: NameSource, out: PairList): void {
  const benchIndex = new NameIndex(bench.nameArena);
  for (let i = 0; i < npu.length; i++) {
    const first = benchIndex.first(keys.get(i));
    if (first < 0) out.push(i, -1);
    else for (let b = first; b >= 0; b = benchIndex.next[b]) out.push(i, b);
  }
}

/**
 * msprobe's fuzzy name: the call count of an API (`Functional.conv2d.3.forward…` → `Functional.conv2d.forward…`),
 * or a module's class name, dropped: the two dot-segments before the first `forward`/`backward`.
 */
export function fuzzyName(name: string): string {
  for (const word of ['forward', 'backward']) {
    const at = name.indexOf(word);
    if (at < 0) continue;
    const pre = name.slice(0, at);
    const post = name.slice(at + word.length);
    const parts = pre.split('.');
    const head = parts.length > 2 ? parts.slice(0, parts.length - 2).join('.') : parts[0];
    return `${head}.${word}${post}`;
  }
  return name;
}

/**
 * msprobe's fuzzy walk (§3.4) over both sides in dump order. Where the original stops at the end of the shorter
 * side and drops the NPU rows not yet read (quirk 1), the rest of the NPU rows are emitted unmatched instead: the
 * documentation promises every NPU row a line.
 */
function fuzzyPairs(npu: SideTable, bench: SideTable, keys: NameSource, out: PairList): void {
  const nName = (i: number) => fuzzyName(keys.get(i));
  const bName = (i: number) => fuzzyName(bench.name(i));
  const same = (n: number, b: number) => npu.shape(n) === bench.shape(b) && nName(n) === bName(b);
  let N: number[] = [];
  let B: number[] = [];
  const total = Math.max(npu.length, bench.length);
  let read = 0;
  for (let i = 0; i < total; i++) {
    if (i < npu.length) N.push(i);
    if (i < bench.length) B.push(i);
    read = i + 1;
    if ((N.length === 0) !== (B.length === 0)) break;
    if (N.length === 0) continue;
    const found = matchOp(N, B, same);
    if (!found) continue;
    const [n, b] = found;
    for (let k = 0; k < n; k++) out.push(N[k], -1);
    out.push(N[n], B[b]);
    N = N.slice(n + 1);
    B = B.slice(b + 1);
  }
  for (const n of N) out.push(n, -1);
  for (let i = read; i < npu.length; i++) out.push(i, -1);
}

function matchOp(N: number[], B: number[], same: (n: number, b: number) => boolean): [number, number] | null {
  const last = N[N.length - 1];
  for (let j = 0; j < B.length - 1; j++) if (same(last, B[j])) return [N.length - 1, j];
  if (same(last, B[B.length - 1])) return [N.length - 1, B.length - 1];
  const lastB = B[B.length - 1];
  for (let k = 0; k < N.length - 1; k++) if (same(N[k], lastB)) return [k, B.length - 1];
  return null;
}

export function matchRows(npu: SideTable, bench: SideTable, options: MatchOptions): MatchedPairs {
  const out = new PairList(npu.length);
  if (options.kind === 'fuzzy') fuzzyPairs(npu, bench, options.npuKeys, out);
  else if (options.kind === 'dataMapping') leftPairs(npu, bench, options.npuKeys, out);
  else exactPairs(npu, bench, options.npuKeys, out);
  const pairs = out.finish();
  // Data mapping skips the dtype rule; exact and fuzzy matches must pass it.
  if (options.kind !== 'dataMapping') {
    for (let k = 0; k < pairs.length; k++) {
      const b = pairs.bench[k];
      if (b >= 0 && !dtypesCompatible(npu.dtype(pairs.npu[k]), bench.dtype(b), options.crossFramework)) pairs.bench[k] = -1;
    }
  }
  return pairs;
}
