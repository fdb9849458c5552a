import { ItemBuilder, type RawItem } from '../model/item.js';
import type { DumpHead } from './dumpJson.js';
import { defaultItem, finishLeafItem, IO_FIELDS, isParamsGradEntry, listIndexed, MAX_DEPTH, PARAMS_GRAD, type ItemState } from './dumpItems.js';
import type { PyValue } from './pyJson.js';
import { pyIntOf } from './pyJsonNative.js';
import { jsonString, skipWs, startsWith, stringEnd } from './jsonBytes.js';
import type { Utf8Decode } from './utf8.js';

/**
 * dump.json straight from its UTF-8 bytes to the items of its entries (the graph command's common path): one pass
 * that parses the JSON and flattens each entry as dumpItems.ts does (`read_op` → `op_item_parse` → `gen_op_item`),
 * without a parse tree, a pre-scan or `JSON.parse` in between. Numbers are read as Python reads them (int ≠ float,
 * `NaN`/`Infinity`), dicts keep their key order, and the short strings a dump repeats by the hundred thousand
 * ("torch.Tensor", "torch.bfloat16", the descriptor keys) are one string each.
 *
 * An entry that is not the usual shape (a repeated key, a P2P op, nesting past msprobe's limit, not a dict) is
 * handed over as its value, for dumpItems.ts to flatten; so are the entries whose raw value a check reads
 * (`wantsValue`). A file that is not plain, well-formed JSON with a `data` dict (malformed, a repeated entry or
 * top-level key, a BOM) is not read here at all: `readDumpItems` returns null before any of its work is kept
 * (the visitor may have been called: the caller starts afresh), and dumpJson.ts `visitDumpJson` reads it, with its
 * messages for what is wrong.
 */

export interface DumpItemsVisitor {
  /** An entry of this name was handed over already (a repeated name: the general reader keeps Python's order). */
  seen(name: string): boolean;
  /** True: `entry` gets this entry's value instead of `items` its items. */
  wantsValue(name: string): boolean;
  /** An entry's value, dicts as Maps (the hand parser's form). */
  entry(name: string, value: PyValue): void;
  /** An entry's items, in `read_op`'s order. */
  items(name: string, items: RawItem[]): void;
  /** True: the entry is passed over unread (a peer rank read for its communication nodes only). */
  skips?(name: string): boolean;
}

/**
 * The top level of the file (as `visitDumpJson` returns it), or null when the general reader must read it.
 * `room`: values each item will get later (compare columns of NPU items: ItemBuilder.room).
 */
export function readDumpItems(bytes: Uint8Array, visitor: DumpItemsVisitor, decode: Utf8Decode, room = 0): DumpHead | null {
  const reader = new DumpItemsReader(bytes, visitor, decode, room);
  try {
    return reader.document();
  } catch (e) {
    // Deep nesting overflows the stack (RangeError): the general reader decides about such files too.
    if (e === GIVE_UP || e instanceof RangeError) return null;
    throw e;
  }
}

/** Thrown out of the reader: the file is the general reader's. */
const GIVE_UP = { reason: 'not read here' };
/** Thrown out of an entry's items: the entry is handed over as its value. */
const AS_VALUE = { reason: 'entry as a value' };

/** Containers nested deeper than this make the file the general reader's (its stack limits apply then). */
const MAX_NESTING = 2000;

/** 2^53: integers up to it are exact doubles (the fast path of number reading). */
const EXACT = 9007199254740992;
/** 10^0 … 10^22, exact doubles. */
const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/** Strings up to this many bytes are looked up in the table of strings read before. */
const SHORT = 40;
const TABLE_BITS = 12;

const Q = 0x22; // "
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;

// A class rather than closures: the optimised code then serves both sides' files.
class DumpItemsReader {
  private readonly b: Uint8Array;
  private readonly n: number;
  private pos = 0;
  private readonly builder = new ItemBuilder();
  /** Short strings read so far, by a hash of their bytes: the string and where its bytes are. */
  private readonly tableStr: string[] = new Array<string>(1 << TABLE_BITS).fill('');
  private readonly tableAt = new Int32Array(1 << TABLE_BITS).fill(-1);
  private readonly tableLen = new Int32Array(1 << TABLE_BITS);
  /** Lists being read, one per nesting depth. */
  private readonly scratch: PyValue[][] = [];
  /** Where each field's items are in an entry's list ([start, end) per IO_FIELDS index). */
  private readonly fieldStart = new Int32Array(IO_FIELDS.length);
  private readonly fieldEnd = new Int32Array(IO_FIELDS.length);

  constructor(
    private readonly bytes: Uint8Array,
    private readonly visitor: DumpItemsVisitor,
    private readonly decode: Utf8Decode,
    room: number,
  ) {
    this.builder.room = room;
    // A plain Uint8Array view: every element access then sees one kind of array. Text is decoded from the array
    // given, the kind `decode` expects.
    this.b = bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    this.n = bytes.length;
  }

  /** The text of bytes[start, end). */
  private text(start: number, end: number): string {
    return this.decode(this.bytes, start, end);
  }

  document(): DumpHead {
    const b = this.b;
    this.ws();
    // An empty object has no data: the general reader's.
    if (b[this.pos] !== LBRACE || this.empty(RBRACE)) throw GIVE_UP;
    const top = new Map<string, PyValue>();
    let entries = false;
    for (;;) {
      const key = this.string();
      if (top.has(key)) throw GIVE_UP;
      this.colon();
      if (key === 'data') {
        if (b[this.pos] !== LBRACE) throw GIVE_UP;
        top.set(key, null);
        this.entries();
        entries = true;
      } else top.set(key, this.value(1));
      if (!this.next(RBRACE)) break;
    }
    this.ws();
    if (this.pos !== this.n || !entries) throw GIVE_UP;
    return { top, data: 'entries' };
  }

  /** At an opening bracket: passes it and what follows; true when the container is empty (its `close` passed too). */
  private empty(close: number): boolean {
    this.pos++;
    this.ws();
    if (this.b[this.pos] !== close) return false;
    this.pos++;
    return true;
  }

  /** After a member or element: true at a ',' (passed), false at `close` (passed); anything else gives up. */
  private next(close: number): boolean {
    this.ws();
    const c = this.b[this.pos++];
    if (c === COMMA) {
      this.ws();
      return true;
    }
    if (c === close) return false;
    throw GIVE_UP;
  }

  private colon(): void {
    this.ws();
    if (this.b[this.pos++] !== COLON) throw GIVE_UP;
    this.ws();
  }

  private ws(): void {
    this.pos = skipWs(this.b, this.pos);
  }

  /** The `data` dict, at its '{'. */
  private entries(): void {
    if (this.empty(RBRACE)) return;
    for (;;) {
      const name = this.string();
      if (this.visitor.seen(name)) throw GIVE_UP;
      this.colon();
      this.entry(name);
      if (!this.next(RBRACE)) return;
    }
  }

  private entry(name: string): void {
    const start = this.pos;
    if (this.visitor.skips?.(name)) {
      this.skipValue();
      return;
    }
    if (this.b[start] !== LBRACE || this.visitor.wantsValue(name)) {
      this.visitor.entry(name, this.value(1));
      return;
    }
    let items: RawItem[];
    try {
      items = this.entryItems(name);
    } catch (e) {
      if (e !== AS_VALUE) throw e;
      this.pos = start;
      this.visitor.entry(name, this.value(1));
      return;
    }
    this.visitor.items(name, items);
  }

  /** Past the value at pos without reading it: containers by their brackets, strings by their quotes. */
  private skipValue(): void {
    const b = this.b;
    let i = this.pos;
    if (b[i] !== LBRACE && b[i] !== LBRACKET) {
      this.value(1);
      return;
    }
    let depth = 0;
    while (i < b.length) {
      const c = b[i];
      if (c === Q) {
        i = stringEnd(b, i);
        if (i < 0) throw GIVE_UP;
        continue;
      }
      i++;
      if (c === LBRACE || c === LBRACKET) depth++;
      else if ((c === RBRACE || c === RBRACKET) && --depth === 0) {
        this.pos = i;
        return;
      }
    }
    throw GIVE_UP;
  }

  /** `read_op` of the dict at pos. */
  private entryItems(name: string): RawItem[] {
    const out: RawItem[] = [];
    // Whether the names made below contain "parameters_grad" (the naming of list elements depends on it): it has no
    // '.', so a name contains it when one of the parts joined by '.' does.
    const grads = name.includes(PARAMS_GRAD);
    if (grads && isParamsGradEntry(name)) {
      this.items(name, 'parameters_grad', 0, out, true);
      return out;
    }
    const starts = this.fieldStart;
    const ends = this.fieldEnd;
    starts.fill(-1);
    let last = -1;
    let ordered = true;
    if (this.empty(RBRACE)) return out;
    for (;;) {
      const key = this.string();
      this.colon();
      const field = ioField(key);
      if (field < 0) this.value(2);
      else {
        // A repeated field: its last value counts; dumpItems.ts reads it so.
        if (starts[field] >= 0) throw AS_VALUE;
        if (field < last) ordered = false;
        last = field;
        starts[field] = out.length;
        const [, suffix, state] = IO_FIELDS[field];
        this.items(name + suffix, state, 0, out, grads);
        ends[field] = out.length;
      }
      if (!this.next(RBRACE)) break;
    }
    if (ordered) return out;
    // Fields written in another order: read_op takes them in IO_FIELDS order.
    const sorted: RawItem[] = [];
    for (let f = 0; f < IO_FIELDS.length; f++) for (let k = starts[f]; k >= 0 && k < ends[f]; k++) sorted.push(out[k]);
    return sorted;
  }

  /** `op_item_parse` of the value at pos, its items appended to `out`; `grads`: `name` contains "parameters_grad". */
  private items(name: string, state: ItemState, depth: number, out: RawItem[], grads: boolean): void {
    if (depth > MAX_DEPTH) throw AS_VALUE;
    const b = this.b;
    const c = b[this.pos];
    if (c === LBRACKET) {
      // Parameter gradients are one-element lists per parameter: the element takes the list's own name.
      const indexed = !grads || listIndexed(name);
      if (this.empty(RBRACKET)) return;
      for (let i = 0; ; i++) {
        this.items(indexed ? `${name}.${i}` : name, state, depth + 1, out, grads);
        if (!this.next(RBRACKET)) return;
      }
    }
    if (c === LBRACE) {
      this.dict(name, state, depth, out, grads);
      return;
    }
    if (c === 0x6e && this.literal('null')) {
      out.push(defaultItem(name, state));
      return;
    }
    // Any other value gives no item.
    this.value(depth + 1);
  }

  /**
   * A dict in `op_item_parse`: a descriptor (a string `type`) becomes an item, any other dict is walked key by key.
   * It is read as a descriptor first (the common case); when it is not one it is read again as a container.
   */
  private dict(name: string, state: ItemState, depth: number, out: RawItem[], grads: boolean): void {
    const start = this.pos;
    const item = this.builder.reset();
    let original: PyValue | undefined;
    let groupRanks: PyValue = null;
    let typed = false;
    if (this.empty(RBRACE)) return;
    for (;;) {
      const key = this.string();
      this.colon();
      let v = this.value(depth + 2);
      if (key === 'shape' && Array.isArray(v)) v = sharedShape(v);
      else if (key === 'type') typed = typeof v === 'string';
      else if (key === 'value') original = v;
      else if (key === 'group_ranks') groupRanks = v;
      else if (key === 'class_type' && v === 'torch.distributed.P2POp') throw AS_VALUE;
      item.add(key, typeof v === 'boolean' ? (v ? 'True' : 'False') : v);
      if (!this.next(RBRACE)) break;
    }
    // A repeated key keeps its first place and its last value: dumpItems.ts reads that from a Map.
    if (!item.keysDistinct()) throw AS_VALUE;
    if (typed) {
      out.push(finishLeafItem(item, name, state, original, item.get('type') === 'torch.ProcessGroup' ? groupRanks : null));
      return;
    }
    item.reset();
    this.pos = start + 1;
    this.ws();
    for (;;) {
      const key = this.string();
      this.colon();
      this.items(`${name}.${key}`, state, depth + 1, out, grads || key.includes(PARAMS_GRAD));
      if (!this.next(RBRACE)) return;
    }
  }

  /** The value at pos as the hand parser gives it (dicts as Maps, ints as bigints). */
  private value(depth: number): PyValue {
    const b = this.b;
    const c = b[this.pos];
    if (c === Q) return this.string();
    if ((c >= 0x30 && c <= 0x39) || c === MINUS) return this.number();
    if (depth > MAX_NESTING) throw GIVE_UP;
    if (c === LBRACE) {
      const out = new Map<string, PyValue>();
      if (this.empty(RBRACE)) return out;
      for (;;) {
        const key = this.string();
        this.colon();
        // Python's dict: a repeated key keeps its first place and takes the last value, as Map.set does.
        out.set(key, this.value(depth + 1));
        if (!this.next(RBRACE)) return out;
      }
    }
    if (c === LBRACKET) {
      if (this.empty(RBRACKET)) return [];
      // Elements are collected in a scratch list per depth and copied out at their exact size: a list grown by
      // push keeps room for 17 elements, and a run keeps a shape list in every item.
      const scratch = (this.scratch[depth] ??= []);
      let n = 0;
      for (;;) {
        scratch[n++] = this.value(depth + 1);
        if (!this.next(RBRACKET)) break;
      }
      const out = scratch.slice(0, n);
      scratch.fill(null, 0, n);
      return out;
    }
    if (c === 0x74 && this.literal('true')) return true;
    if (c === 0x66 && this.literal('false')) return false;
    if (c === 0x6e && this.literal('null')) return null;
    if (c === 0x4e && this.literal('NaN')) return NaN;
    if (c === 0x49 && this.literal('Infinity')) return Infinity;
    throw GIVE_UP;
  }

  /** `word` (ASCII) at pos: passed. */
  private literal(word: string): boolean {
    if (!startsWith(this.b, word, this.pos)) throw GIVE_UP;
    this.pos += word.length;
    return true;
  }

  /**
   * A number as Python's json reads it: an int (`-?(0|[1-9]\d*)`) is a bigint, anything with a fraction or an
   * exponent a float. Floats of at most 2^53 as digits with a power of ten up to 22 are exact in one IEEE operation
   * (Clinger's fast path); the rest are converted from their text.
   */
  private number(): number | bigint {
    const b = this.b;
    const start = this.pos;
    let i = start;
    const negative = b[i] === MINUS;
    if (negative) {
      i++;
      if (b[i] === 0x49) {
        this.pos = i;
        this.literal('Infinity');
        return -Infinity;
      }
    }
    let c = b[i];
    let m = 0;
    if (c === 0x30) c = b[++i];
    else if (c >= 0x31 && c <= 0x39) {
      do {
        m = m * 10 + (c - 0x30);
        c = b[++i];
      } while (c >= 0x30 && c <= 0x39);
    } else throw GIVE_UP;
    const intDigits = i - start - (negative ? 1 : 0);
    if (c !== 0x2e && c !== 0x65 && c !== 0x45) {
      if (c >= 0x30 && c <= 0x39) throw GIVE_UP; // a leading zero
      this.pos = i;
      if (intDigits > 15) return BigInt(this.text(start, i));
      return pyIntOf(negative ? -m : m);
    }
    let exp = 0;
    if (c === 0x2e) {
      c = b[++i];
      if (!(c >= 0x30 && c <= 0x39)) throw GIVE_UP;
      do {
        m = m * 10 + (c - 0x30);
        exp--;
        c = b[++i];
      } while (c >= 0x30 && c <= 0x39);
    }
    let exact = true;
    if (c === 0x65 || c === 0x45) {
      c = b[++i];
      let expSign = 1;
      if (c === 0x2b || c === MINUS) {
        if (c === MINUS) expSign = -1;
        c = b[++i];
      }
      if (!(c >= 0x30 && c <= 0x39)) throw GIVE_UP;
      let e = 0;
      do {
        if (e < 100000) e = e * 10 + (c - 0x30);
        else exact = false;
        c = b[++i];
      } while (c >= 0x30 && c <= 0x39);
      exp += expSign * e;
    }
    this.pos = i;
    if (exact && m <= EXACT && exp >= -22 && exp <= 22) {
      const v = exp < 0 ? m / POW10[-exp] : m * POW10[exp];
      return negative ? -v : v;
    }
    return Number(this.text(start, i));
  }

  /** The string at pos (its opening quote), decoded; short ASCII strings read before are the same string. */
  private string(): string {
    const b = this.b;
    const start = this.pos;
    if (b[start] !== Q) throw GIVE_UP;
    let i = start + 1;
    let h = 0;
    let plain = true;
    let escaped = false;
    for (;;) {
      const c = b[i];
      if (c === Q) break;
      if (c === BACKSLASH) {
        escaped = true;
        i += 2;
        continue;
      }
      // A raw control character (and the end of the bytes: undefined fails every test above, then this one).
      if (!(c >= 0x20)) throw GIVE_UP;
      if (c >= 0x80) plain = false;
      h = (Math.imul(h, 31) + c) | 0;
      i++;
    }
    this.pos = i + 1;
    if (escaped) {
      const s = jsonString(this.bytes, start, i + 1, this.decode);
      if (s === null) throw GIVE_UP;
      return s;
    }
    const len = i - start - 1;
    if (!plain || len > SHORT) return this.text(start + 1, i);
    const slot = (h ^ (h >>> TABLE_BITS)) & ((1 << TABLE_BITS) - 1);
    const at = this.tableAt[slot];
    if (at >= 0 && this.tableLen[slot] === len) {
      let k = 0;
      while (k < len && b[at + k] === b[start + 1 + k]) k++;
      if (k === len) return this.tableStr[slot];
    }
    const decoded = this.text(start + 1, i);
    const s = CANONICAL.get(decoded) ?? decoded;
    this.tableStr[slot] = s;
    this.tableAt[slot] = start + 1;
    this.tableLen[slot] = len;
    return s;
  }
}

/**
 * The keys every descriptor and entry has, as the program's own string constants: items' keys are then the very
 * strings the code looks them up by, and lookups compare pointers instead of characters.
 */
const CANONICAL = new Map(
  [
    ...['type', 'dtype', 'shape', 'Max', 'Min', 'Mean', 'Norm', 'requires_grad', 'md5', 'data_name', 'value', 'full_op_name', 'state'],
    ...IO_FIELDS.map(([field]) => field),
  ].map((k) => [k, k]),
);

/**
 * Tensor shapes, one list for each distinct shape (`[1, 4096, 1024]` is the shape of thousands of items, on both
 * sides): a run keeps one list instead of one per item, matching finds equal shapes by identity, and writers format
 * each list once. Lists of items are never changed in place. A fixed table: a shape not in its slot is only kept.
 */
const SHAPE_SLOTS = 1024;
const shapeTable: Array<PyValue[] | undefined> = new Array(SHAPE_SLOTS);

function sharedShape(list: PyValue[]): PyValue[] {
  if (list.length > 8) return list;
  let h = list.length;
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    // Dimensions are ints (bigints, compared by value); a list of anything else is kept as it is.
    if (typeof d !== 'bigint') return list;
    h = (Math.imul(h, 31) + Number(d)) | 0;
  }
  const slot = (h ^ (h >>> 10)) & (SHAPE_SLOTS - 1);
  const known = shapeTable[slot];
  if (known && known.length === list.length) {
    let i = 0;
    while (i < list.length && known[i] === list[i]) i++;
    if (i === list.length) return known;
  }
  shapeTable[slot] = list;
  return list;
}

/** The index in IO_FIELDS of an entry key, or -1. */
function ioField(key: string): number {
  switch (key) {
    case 'input_args':
      return 0;
    case 'input_kwargs':
      return 1;
    case 'input':
      return 2;
    case 'output':
      return 3;
    case 'parameters':
      return 4;
  }
  return -1;
}
