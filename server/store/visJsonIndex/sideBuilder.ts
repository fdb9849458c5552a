import { ByteTable, GrowArray } from './growArray.js';
import type { JsonCursor } from './jsonCursor.js';
import { hashBytes, lookupBytes, NO_LINK, NO_MICRO, sameBytes, type SideIndex } from './visIndex.js';

/**
 * Collects one side's entries while the scanner walks its `node` object, then resolves them into a SideIndex with
 * the whole-file store's rules (server/store/visJson): a repeated id keeps its last value, non-object values are not
 * nodes, children are `subnodes` minus dangling ids and repeats, parents come from walking `subnodes` from the root.
 */

const encoder = new TextEncoder();

/** A side that cannot be read as a graph: the message names what is wrong (readSide's wording). */
export class SideShapeError extends Error {}

export class SideBuilder {
  /** `root` as found: undefined = no key, null = not a string. */
  root: string | null | undefined = undefined;
  /** Whether the side's `node` key was seen with an object value (the last one counts). */
  nodeMap: 'absent' | 'object' | 'other' = 'absent';

  private ids = new ByteTable();
  private refs = new ByteTable();
  private readonly overflowNames: string[] = [];
  private isObject = new GrowArray(Uint8Array);
  private nodeType = new GrowArray(Int32Array);
  private precision = new GrowArray(Float64Array);
  private overflow = new GrowArray(Uint8Array);
  private micro = new GrowArray(Int32Array);
  private start = new GrowArray(Float64Array);
  private length = new GrowArray(Uint32Array);
  private linkOff = new GrowArray(Uint32Array);
  private linkLen = new GrowArray(Uint32Array);
  private linkCount = new GrowArray(Uint32Array);
  private refStart = new GrowArray(Uint32Array);

  private sealed: Omit<SideIndex, 'rootIdx' | 'parent' | 'preorder' | 'rated'> | undefined;

  // The node being scanned: set by the scanner, pushed by endNode().
  curType = 0;
  curPrecision = NaN;
  curOverflow: string | null = null;
  curMicro = NO_MICRO;
  curLinkOff = 0;
  curLinkLen = NO_LINK;
  curLinkCount = 0;
  private curStart = 0;
  private curRefStart = 0;

  /** A repeated `node` key replaces everything the earlier one added. */
  resetEntries(): void {
    this.sealed = undefined;
    this.ids = new ByteTable();
    this.refs = new ByteTable();
    for (const a of [this.isObject, this.nodeType, this.precision, this.overflow, this.micro]) a.truncate(0);
    for (const a of [this.start, this.length, this.linkOff, this.linkLen, this.linkCount, this.refStart]) a.truncate(0);
  }

  /** Adds an entry whose id is the cursor's last string span. */
  addEntry(c: JsonCursor): void {
    addSpan(this.ids, c);
    this.refStart.push(this.refs.count);
  }

  /** The entry just added has a non-object value: not a node. */
  entryNotObject(): void {
    this.pushColumns(0, 0, 0);
  }

  beginNode(startAbs: number): void {
    this.curStart = startAbs;
    this.curRefStart = this.refs.count;
    this.curType = 0;
    this.curPrecision = NaN;
    this.curOverflow = null;
    this.curMicro = NO_MICRO;
    this.curLinkOff = 0;
    this.curLinkLen = NO_LINK;
    this.curLinkCount = 0;
  }

  /** A `subnodes` key: a repeated one replaces the earlier list. */
  resetChildRefs(): void {
    this.refs.truncate(this.curRefStart);
  }

  addChildRef(c: JsonCursor): void {
    addSpan(this.refs, c);
  }

  endNode(endAbs: number): void {
    const len = endAbs - this.curStart;
    if (len > 0xffffffff) throw new SideShapeError('a node object is larger than 4 GiB');
    this.pushColumns(1, this.curStart, len);
  }

  private pushColumns(isObject: number, start: number, len: number): void {
    this.isObject.push(isObject);
    this.nodeType.push(isObject ? this.curType : 0);
    this.precision.push(isObject ? this.curPrecision : NaN);
    let code = 0;
    if (isObject && this.curOverflow !== null) {
      code = this.overflowNames.indexOf(this.curOverflow) + 1;
      if (code === 0 && this.overflowNames.length < 255) code = this.overflowNames.push(this.curOverflow);
    }
    this.overflow.push(code);
    this.micro.push(isObject ? this.curMicro : NO_MICRO);
    this.start.push(start);
    this.length.push(len);
    this.linkOff.push(isObject ? this.curLinkOff : 0);
    this.linkLen.push(isObject ? this.curLinkLen : NO_LINK);
    this.linkCount.push(isObject ? this.curLinkCount : 0);
  }

  /**
   * Called when the side's `node` object ends: resolves ids and children and trims the columns, so the child-id
   * strings are freed before the next side is read. The root (which may come later in the file) is not needed yet.
   */
  seal(): void {
    if (this.sealed) return;
    this.refStart.push(this.refs.count);
    const { bytes: idBytes, offsets: idOffsets } = this.ids.done();
    const entries = idOffsets.length - 1;
    const alive = this.isObject.done();

    // Later entries with the same id replace earlier ones, as JSON.parse-style object building does.
    let size = 16;
    while (size < entries * 2) size *= 2;
    const hash = new Int32Array(size).fill(-1);
    const mask = size - 1;
    for (let i = 0; i < entries; i++) {
      const s = idOffsets[i];
      const e = idOffsets[i + 1];
      let slot = hashBytes(idBytes, s, e) & mask;
      for (;;) {
        const other = hash[slot];
        if (other < 0) {
          hash[slot] = i;
          break;
        }
        if (sameBytes(idBytes, idOffsets[other], idOffsets[other + 1], idBytes, s, e)) {
          alive[other] = 0;
          hash[slot] = i;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    let nodeCount = 0;
    for (let i = 0; i < entries; i++) nodeCount += alive[i];
    const { childStart, children } = this.resolveChildren(entries, alive, { hash, idBytes, idOffsets });
    this.sealed = {
      nodeCount,
      idBytes,
      idOffsets,
      hash,
      alive,
      nodeType: this.nodeType.done(),
      precision: this.precision.done(),
      overflow: this.overflow.done(),
      micro: this.micro.done(),
      start: this.start.done(),
      length: this.length.done(),
      linkOff: this.linkOff.done(),
      linkLen: this.linkLen.done(),
      linkCount: this.linkCount.done(),
      childStart,
      children,
      overflowNames: this.overflowNames,
    };
  }

  /** Checks the root, then parents and execution order. `where` names the side in errors. */
  finish(where: string): SideIndex {
    if (this.root === undefined || this.root === null) throw new SideShapeError(`${where} has no string "root"`);
    if (this.nodeMap !== 'object') throw new SideShapeError(`${where} has no "node" object`);
    this.seal();
    const sealed = this.sealed!;
    const rootBytes = encoder.encode(this.root);
    const rootIdx = lookupBytes(sealed, rootBytes, 0, rootBytes.length);
    if (rootIdx < 0 || !sealed.alive[rootIdx]) {
      throw new SideShapeError(`root "${this.root}" of ${where} is not in its "node" object`);
    }
    const entries = sealed.idOffsets.length - 1;
    const parent = walkParents(rootIdx, entries, sealed.childStart, sealed.children);
    const preorder = executionOrder(rootIdx, entries, sealed.alive, sealed.childStart, sealed.children, parent);
    const rated = outputOrder(rootIdx, sealed.precision, sealed.childStart, sealed.children, parent, preorder);
    return { ...sealed, rootIdx, parent, preorder, rated };
  }

  private resolveChildren(
    entries: number,
    alive: Uint8Array,
    lookup: Pick<SideIndex, 'hash' | 'idBytes' | 'idOffsets'>,
  ): { childStart: Uint32Array; children: Int32Array } {
    const refStart = this.refStart.done();
    const { bytes: refBytes, offsets: refOffsets } = this.refs.done();
    this.refs = new ByteTable();
    const childStart = new Uint32Array(entries + 1);
    const children = new GrowArray(Int32Array, Math.max(1024, refOffsets.length));
    // seenBy[j] = the last parent that listed j: drops repeats within one list without a Set per node.
    const seenBy = new Int32Array(entries).fill(-1);
    for (let i = 0; i < entries; i++) {
      if (alive[i]) {
        for (let r = refStart[i]; r < refStart[i + 1]; r++) {
          const j = lookupBytes(lookup, refBytes, refOffsets[r], refOffsets[r + 1]);
          if (j < 0 || !alive[j] || seenBy[j] === i) continue;
          seenBy[j] = i;
          children.push(j);
        }
      }
      childStart[i + 1] = children.length;
    }
    return { childStart, children: children.done() };
  }
}

/** Copies the cursor's last string span into `table` as UTF-8 of the decoded string. */
function addSpan(table: ByteTable, c: JsonCursor): void {
  if (!c.spanEscaped && c.spanAscii) {
    table.add(c.buf, c.spanStart, c.spanEnd);
    return;
  }
  // Escapes decoded and invalid UTF-8 normalised, so `"\u00e9"` and a raw `é` are the same id.
  const bytes = encoder.encode(c.spanText());
  table.add(bytes, 0, bytes.length);
}

/** visDocument.walkParents over entry numbers: depth-first, first parent wins, cycle-safe. */
function walkParents(root: number, entries: number, childStart: Uint32Array, children: Int32Array): Int32Array {
  const parent = new Int32Array(entries).fill(-1);
  const stack = new GrowArray(Int32Array);
  stack.push(root);
  while (stack.length > 0) {
    const id = stack.get(--stack.length);
    for (let k = childStart[id]; k < childStart[id + 1]; k++) {
      const child = children[k];
      if (child === root || parent[child] >= 0) continue;
      parent[child] = id;
      stack.push(child);
    }
  }
  return parent;
}

/** Pre-order over the parent tree (children in file order), then the unreachable live entries in file order. */
function executionOrder(
  root: number,
  entries: number,
  alive: Uint8Array,
  childStart: Uint32Array,
  children: Int32Array,
  parent: Int32Array,
): Int32Array {
  const order = new GrowArray(Int32Array, 1024);
  const stack = new GrowArray(Int32Array);
  stack.push(root);
  while (stack.length > 0) {
    const id = stack.get(--stack.length);
    order.push(id);
    for (let k = childStart[id + 1] - 1; k >= childStart[id]; k--) {
      const child = children[k];
      if (parent[child] === id) stack.push(child);
    }
  }
  for (let i = 0; i < entries; i++) if (alive[i] && i !== root && parent[i] < 0) order.push(i);
  return order.done();
}

/**
 * The entries with a finite precision in the order outputs are produced (worstQuery.ts): post-order over the tree
 * edges (a module after its last child), then the nodes the tree does not reach (legacy and layer-mapping files) in
 * file order, as the execution order has them.
 */
function outputOrder(
  root: number,
  precision: Float64Array,
  childStart: Uint32Array,
  children: Int32Array,
  parent: Int32Array,
  preorder: Int32Array,
): Int32Array {
  const rated = new GrowArray(Int32Array, 1024);
  // An explicit stack of (entry, next child position): trees may be deeper than the call stack.
  const stack = new Int32Array(preorder.length + 1);
  const next = new Uint32Array(preorder.length + 1);
  stack[0] = root;
  next[0] = childStart[root];
  let top = 1;
  while (top > 0) {
    const e = stack[top - 1];
    const k = next[top - 1];
    if (k < childStart[e + 1]) {
      next[top - 1] = k + 1;
      const c = children[k];
      if (parent[c] === e) {
        stack[top] = c;
        next[top] = childStart[c];
        top++;
      }
      continue;
    }
    top--;
    if (Number.isFinite(precision[e])) rated.push(e);
  }
  for (const e of preorder) if (e !== root && parent[e] < 0 && Number.isFinite(precision[e])) rated.push(e);
  return rated.done();
}
