import type { GraphType } from '../../../src/core/api/types.js';
import { JsonCursor, MAX_DEPTH, type ByteSource } from './jsonCursor.js';
import { readNumberish, readStringOrNull, skipValue } from './jsonValues.js';
import { SideBuilder, SideShapeError } from './sideBuilder.js';
import { type SideIndex } from './visIndex.js';

/**
 * Walks a `.vis` (msprobe-format.md §4.3) once, in chunks: descends into the sides' `node` objects and, per node,
 * into the few fields the index keeps (node_type, micro_step_id, subnodes, matched_node_link's byte range,
 * data.precision_index / overflow_level); everything else is validated and skipped without building strings.
 * The shape checks and their messages are visDocument.readVisDocument's, so both readers refuse a file alike.
 */

/** Top-level keys whose (small) values are kept as JSON text for the meta route. */
const META_KEYS = new Set(['ToolTip', 'Colors', 'MicroSteps', 'task', 'OverflowCheck']);

const enum Field {
  Other,
  NodeType,
  Micro,
  Subnodes,
  Link,
  Data,
}
const FIELD_NAMES: Array<[string, Field]> = [
  ['node_type', Field.NodeType],
  ['micro_step_id', Field.Micro],
  ['subnodes', Field.Subnodes],
  ['matched_node_link', Field.Link],
  ['data', Field.Data],
];
const FIELD_BYTES = FIELD_NAMES.map(([name, f]) => [Buffer.from(name), f] as const);

export interface ScanResult {
  graphType: GraphType;
  sides: { npu?: SideIndex; bench?: SideIndex };
  metaText: Record<string, string>;
}

/** Thrown for a well-formed JSON file that is not a graph (readVisDocument's messages). */
export class NotAGraphError extends Error {}

export function scanVis(src: ByteSource, options: { chunkSize: number; onRead?: (bytesRead: number) => void }): ScanResult {
  const c = new JsonCursor(src, options.chunkSize, options.onRead);
  c.ensure(3);
  if (c.buf[0] === 0xef && c.buf[1] === 0xbb && c.buf[2] === 0xbf) c.p = 3; // UTF-8 BOM
  const first = c.next();
  if (first !== 0x7b) {
    skipValue(c, 0);
    trailing(c);
    throw new NotAGraphError('not a .vis graph: the top level is not a JSON object');
  }
  const top = new TopScan();
  top.scan(c);
  trailing(c);
  return top.finish();
}

function trailing(c: JsonCursor): void {
  const after = c.ws();
  if (after >= 0) c.fail(`unexpected ${c.describe()} after the end of the JSON value`);
}

class TopScan {
  /** Compare sides by top-level key; undefined = key absent, 'other' = present but not an object. */
  private npu: SideBuilder | 'other' | undefined;
  private bench: SideBuilder | 'other' | undefined;
  /** The top level read as a build graph (its own root / node keys). */
  private build = new SideBuilder();
  private metaText: Record<string, string> = {};
  private hasRootOrNode = false;

  scan(c: JsonCursor): void {
    if (!c.openObject()) return;
    do {
      const key = c.key();
      const v = c.next();
      if (key === 'NPU' || key === 'Bench') {
        let side: SideBuilder | 'other' = 'other';
        if (v === 0x7b) scanSide(c, (side = new SideBuilder()), 1);
        else skipValue(c, 1);
        if (key === 'NPU') this.npu = side;
        else this.bench = side;
      } else if (key === 'root' || key === 'node') {
        this.hasRootOrNode = true;
        sideMember(c, this.build, key, v, 1);
      } else if (META_KEYS.has(key)) {
        // Anchored so the value's bytes survive refills; these values are small.
        c.anchor = c.p;
        skipValue(c, 1);
        const bytes = c.buf.subarray(c.anchor, c.p);
        this.metaText[key] = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
        c.anchor = -1;
      } else {
        skipValue(c, 1);
      }
    } while (c.nextMember());
  }

  finish(): ScanResult {
    const side = (b: SideBuilder | 'other' | undefined, where: string): SideIndex => {
      if (b === undefined || b === 'other') throw new NotAGraphError(`${where} is missing or not an object`);
      try {
        return b.finish(where);
      } catch (e) {
        if (e instanceof SideShapeError) throw new NotAGraphError(e.message);
        throw e;
      }
    };
    // `NPU` decides the type, as in the reference viewer (msprobe-format.md §7).
    if (this.npu !== undefined) {
      const npu = side(this.npu, '"NPU"');
      const bench = side(this.bench, '"Bench"');
      return { graphType: 'compare', sides: { npu, bench }, metaText: this.metaText };
    }
    if (this.hasRootOrNode) {
      return { graphType: 'build', sides: { npu: side(this.build, 'the top level') }, metaText: this.metaText };
    }
    throw new NotAGraphError('not a .vis graph: no "NPU" (compare) or "root"/"node" (build) key at the top level');
  }
}

/** A compare side's object: `root`, `node`, anything else skipped. p is at its '{'. */
function scanSide(c: JsonCursor, b: SideBuilder, depth: number): void {
  if (!c.openObject()) return;
  do {
    const key = c.key();
    const v = c.next();
    if (key === 'root' || key === 'node') sideMember(c, b, key, v, depth + 1);
    else skipValue(c, depth + 1);
  } while (c.nextMember());
}

/** The value of a side's `root` or `node` key; v is its first byte. Repeated keys: the last one counts. */
function sideMember(c: JsonCursor, b: SideBuilder, key: 'root' | 'node', v: number, depth: number): void {
  if (key === 'root') {
    b.root = v === 0x22 ? c.readString() : null;
    if (v !== 0x22) skipValue(c, depth);
    return;
  }
  b.resetEntries();
  if (v === 0x7b) {
    scanNodeMap(c, b, depth);
    b.seal();
    b.nodeMap = 'object';
  } else {
    skipValue(c, depth);
    b.nodeMap = 'other';
  }
}

/** `{ "<id>": NODE, … }`; p is at its '{'. */
function scanNodeMap(c: JsonCursor, b: SideBuilder, depth: number): void {
  if (!c.openObject()) return;
  do {
    c.keySpan();
    b.addEntry(c);
    c.colon();
    if (c.next() === 0x7b) scanNode(c, b, depth + 1);
    else {
      skipValue(c, depth + 1);
      b.entryNotObject();
    }
  } while (c.nextMember());
}

/** One node object; p is at its '{'. */
function scanNode(c: JsonCursor, b: SideBuilder, depth: number): void {
  const startAbs = c.at();
  b.beginNode(startAbs);
  if (c.openObject()) {
    do {
      c.keySpan();
      const field = fieldOf(c);
      c.colon();
      switch (field) {
        case Field.NodeType: {
          const n = readNumberish(c, depth + 1);
          b.curType = Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : 0;
          break;
        }
        case Field.Micro: {
          const n = readNumberish(c, depth + 1);
          b.curMicro = Number.isInteger(n) && n > -2147483648 && n <= 2147483647 ? n : -2147483648;
          break;
        }
        case Field.Subnodes:
          b.resetChildRefs();
          if (c.next() === 0x5b) scanSubnodes(c, b, depth + 1);
          else skipValue(c, depth + 1);
          break;
        case Field.Link: {
          const linkStart = c.at();
          b.curLinkCount = c.next() === 0x5b ? countStrings(c, depth + 1) : (skipValue(c, depth + 1), 0);
          b.curLinkOff = linkStart - startAbs;
          b.curLinkLen = c.at() - linkStart;
          break;
        }
        case Field.Data:
          b.curPrecision = NaN;
          b.curOverflow = null;
          if (c.next() === 0x7b) scanData(c, b, depth + 1);
          else skipValue(c, depth + 1);
          break;
        default:
          skipValue(c, depth + 1);
      }
    } while (c.nextMember());
  }
  b.endNode(c.at());
}

/** The field a node key names, compared on raw bytes (no string per key). */
function fieldOf(c: JsonCursor): Field {
  if (c.spanEscaped) {
    const name = c.spanText();
    return FIELD_NAMES.find(([n]) => n === name)?.[1] ?? Field.Other;
  }
  const { buf, spanStart: s, spanEnd: e } = c;
  const len = e - s;
  for (const [bytes, field] of FIELD_BYTES) {
    if (bytes.length !== len || buf[s] !== bytes[0]) continue;
    let k = 1;
    while (k < len && buf[s + k] === bytes[k]) k++;
    if (k === len) return field;
  }
  return Field.Other;
}

/** `subnodes: [...]`: string elements become child references, anything else is skipped (subnodeIds' rule). */
function scanSubnodes(c: JsonCursor, b: SideBuilder, depth: number): void {
  if (!c.openArray()) return;
  do {
    if (depth + 1 > MAX_DEPTH) c.fail('nesting too deep');
    if (c.next() === 0x22) {
      c.readStringSpan();
      b.addChildRef(c);
    } else {
      skipValue(c, depth + 1);
    }
  } while (c.nextElement());
}

/** Skips an array, counting its string elements (matched_node_link's stringList length). */
function countStrings(c: JsonCursor, depth: number): number {
  let count = 0;
  if (!c.openArray()) return 0;
  do {
    if (c.next() === 0x22) {
      c.skipString();
      count++;
    } else {
      skipValue(c, depth + 1);
    }
  } while (c.nextElement());
  return count;
}

/** `data: {...}`: precision_index and overflow_level, the rest skipped. A repeated key: the last one counts. */
function scanData(c: JsonCursor, b: SideBuilder, depth: number): void {
  if (!c.openObject()) return;
  do {
    const key = c.key();
    if (key === 'precision_index') b.curPrecision = readNumberish(c, depth + 1);
    else if (key === 'overflow_level') b.curOverflow = readStringOrNull(c, depth + 1);
    else skipValue(c, depth + 1);
  } while (c.nextMember());
}
