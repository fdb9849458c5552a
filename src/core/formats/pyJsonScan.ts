import { skipWs, startsWith, stringEnd } from './jsonBytes.js';
import { utf8Decode, type Utf8Decode } from './utf8.js';

/**
 * The pre-scan of pyJsonNative.ts: one pass over a Python-written JSON file's UTF-8 bytes that notes, for every
 * number token in file order, whether Python wrote it as an int or a float (`JSON.parse` cannot tell `423` from
 * `423.0`), where the `NaN`/`Infinity` tokens are (`JSON.parse` rejects them), and which keys would not survive in a
 * JS object (integer-like keys move to the front; escaped keys might decode to one). For a top-level object it also
 * notes where each member's value is, and for a top-level `data` object where each entry's value is, so dump.json
 * can be parsed one batch of entries at a time. Strings are skipped with `indexOf`; only the bytes between them
 * are read one by one.
 *
 * It reads bytes, not text: a dump.json of tens or hundreds of megabytes then never becomes one string (a string
 * that large lives until a full collection, and none may exceed 512 MiB). Positions are byte offsets; JSON's
 * structural characters are ASCII, and the bytes of a multi-byte character are all ≥ 0x80, so none is mistaken
 * for one. Only keys are decoded here (with `decode`).
 *
 * Structure is checked at the top two levels (key, ':', value, ',' …); below that `JSON.parse` checks it.
 */

export const enum Kind {
  Int = 0,
  Float = 1,
  /** An int of more than 15 digits: exact only from its text. */
  BigInt = 2,
  NaN = 3,
  Infinity = 4,
  MinusInfinity = 5,
}

/** A member of the top-level object, or an entry of its `data` object (positions: byte offsets). */
export interface MemberSpan {
  /** The key, decoded. */
  key: string;
  /** Where the key's opening quote is. */
  keyStart: number;
  /** The value's bytes are [valueStart, valueEnd). */
  valueStart: number;
  valueEnd: number;
  /** Its numbers are kinds[kindStart, kindEnd); its long ints start at bigInts[bigStart]. */
  kindStart: number;
  kindEnd: number;
  bigStart: number;
  /** Keys inside the value. */
  keyCount: number;
  /** `JSON.parse` gives the value exactly: no integer-like or escaped key, no NaN/Infinity inside. */
  plain: boolean;
}

export interface DocScan {
  kinds: Uint8Array;
  count: number;
  bigInts: string[];
  /** [start, end) pairs of the NaN/Infinity tokens. */
  specials: number[];
  /** Keys in the whole document. */
  keys: number;
  /** No integer-like or escaped key anywhere. */
  keysPlain: boolean;
  /** Members of the top-level object; null when the text is not an object with a well-formed top level. */
  top: MemberSpan[] | null;
  /** Entries of the top-level `data` object (the last `data` member); null when there is no such object. */
  data: MemberSpan[] | null;
}

const enum Expect {
  Key,
  KeyOrEnd,
  Colon,
  Value,
  CommaOrEnd,
}

/** The scan of `bytes`, or null when they cannot be a JSON text the fast readers handle (the hand parser decides). */
export function scanDocument(bytes: Uint8Array, decode: Utf8Decode = utf8Decode): DocScan | null {
  return new Scanner(bytes, decode).run();
}

// A class rather than a function with inner closures: closures are new objects on every call, which makes the
// optimised code of a second scan (the other side's dump) throw itself away.
class Scanner {
  private readonly n: number;
  private kinds: Uint8Array;
  private count = 0;
  private keys = 0;
  private keysPlain = true;
  private readonly bigInts: string[] = [];
  private readonly specials: number[] = [];
  /** Containers open: the top object is depth 1, a top member's object or list depth 2, and so on. */
  private depth = 0;
  private readonly isObject: boolean[] = [];
  /** The state machines of the top object (level 1) and of the data object (level 2). */
  private expect1 = Expect.Value;
  private expect2 = Expect.Value;
  private topValid = true;
  private readonly top: MemberSpan[] = [];
  private data: MemberSpan[] | null = null;
  private member: MemberSpan | null = null;
  private entry: MemberSpan | null = null;
  /** Depth of the data object being read (2), or 0. */
  private dataDepth = 0;
  private lastEnd = 0;

  /**
   * The bytes scanned, as a plain Uint8Array view (a Buffer's own indexOf is a native call, slower than V8's for
   * the short strings here). Keys are decoded from the array given, as `decode` expects it.
   */
  private readonly text: Uint8Array;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly decode: Utf8Decode,
  ) {
    this.text = bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    this.n = bytes.length;
    this.kinds = new Uint8Array(Math.max(1024, this.n >> 5));
  }

  private push(kind: Kind): void {
    if (this.count === this.kinds.length) {
      const grown = new Uint8Array(this.count * 2);
      grown.set(this.kinds);
      this.kinds = grown;
    }
    this.kinds[this.count++] = kind;
  }

  private span(key: string, keyStart: number): MemberSpan {
    return { key, keyStart, valueStart: -1, valueEnd: -1, kindStart: 0, kindEnd: 0, bigStart: 0, keyCount: 0, plain: true };
  }

  private open(s: MemberSpan, at: number): void {
    s.valueStart = at;
    s.kindStart = this.count;
    s.bigStart = this.bigInts.length;
    s.keyCount = this.keys;
  }

  private close(s: MemberSpan): void {
    s.valueEnd = this.lastEnd;
    s.kindEnd = this.count;
    s.keyCount = this.keys - s.keyCount;
  }

  /** A value (token or container) starts at `at`: the level machines see it. False: not where a value may be. */
  private valueStarts(at: number): boolean {
    if (this.depth === 1 && this.isObject[0]) {
      if (this.expect1 !== Expect.Value) return false;
      this.open(this.member!, at);
      if (this.member!.key === 'data') this.data = null;
      this.expect1 = Expect.CommaOrEnd;
    } else if (this.depth === 2 && this.dataDepth === 2) {
      if (this.expect2 !== Expect.Value) return false;
      this.open(this.entry!, at);
      this.expect2 = Expect.CommaOrEnd;
    } else if (this.depth === 0) {
      if (this.expect1 !== Expect.Value) return false;
    }
    return true;
  }

  private notPlain(): void {
    if (this.entry) this.entry.plain = false;
    if (this.member) this.member.plain = false;
  }

  /** A string at i: returns where the scan goes on, or -1 when the text is not JSON. */
  private string(i: number): number {
    const text = this.text;
    const n = this.n;
    const end = stringEnd(text, i);
    if (end < 0) return -1;
    const j = end - 1;
    const m = skipWs(text, end);
    if (m >= n || text[m] !== 0x3a) {
      if (!this.valueStarts(i)) this.topValid = false;
      this.lastEnd = j + 1;
      return j + 1;
    }
    // a key
    this.keys++;
    let escaped = false;
    let digitsOnly = j > i + 1;
    for (let k = i + 1; k < j; k++) {
      const d = text[k];
      if (d === 0x5c) escaped = true;
      if (d < 0x30 || d > 0x39) digitsOnly = false;
    }
    // Whole-document parsing needs every key plain; the member levels are read by name, so there it is fine.
    if (escaped || digitsOnly) this.keysPlain = false;
    if (this.depth === 1 && this.isObject[0]) {
      if (this.expect1 !== Expect.Key && this.expect1 !== Expect.KeyOrEnd) return -1;
      this.member = this.span(this.key(i, j, escaped), i);
      this.expect1 = Expect.Value;
    } else if (this.depth === 2 && this.dataDepth === 2) {
      if (this.expect2 !== Expect.Key && this.expect2 !== Expect.KeyOrEnd) return -1;
      this.entry = this.span(this.key(i, j, escaped), i);
      this.expect2 = Expect.Value;
    } else if (escaped || digitsOnly) this.notPlain();
    this.lastEnd = j + 1;
    return m + 1;
  }

  /** The key whose quotes are at i and j. */
  private key(i: number, j: number, escaped: boolean): string {
    return escaped ? (JSON.parse(this.decode(this.bytes, i, j + 1)) as string) : this.decode(this.bytes, i + 1, j);
  }

  /** A ','; false when it is where none may be. */
  private comma(): boolean {
    if (this.depth === 1 && this.isObject[0]) {
      if (this.expect1 !== Expect.CommaOrEnd) return false;
      this.close(this.member!);
      this.top.push(this.member!);
      this.expect1 = Expect.Key;
    } else if (this.depth === 2 && this.dataDepth === 2) {
      if (this.expect2 !== Expect.CommaOrEnd) return false;
      this.close(this.entry!);
      this.data!.push(this.entry!);
      this.entry = null;
      this.expect2 = Expect.Key;
    }
    return true;
  }

  private openContainer(i: number, object: boolean): void {
    if (!this.valueStarts(i)) this.topValid = false;
    this.isObject[this.depth] = object;
    this.depth++;
    if (this.depth === 1) {
      if (!object) this.topValid = false;
      this.expect1 = Expect.KeyOrEnd;
    } else if (this.depth === 2 && this.member && this.member.key === 'data' && object) {
      this.dataDepth = 2;
      this.data = [];
      this.expect2 = Expect.KeyOrEnd;
    }
  }

  /** A closing '}' or ']'; false when it does not close what is open. */
  private closeContainer(object: boolean): boolean {
    if (this.depth === 0 || this.isObject[this.depth - 1] !== object) return false;
    if (this.depth === 2 && this.dataDepth === 2) {
      if (this.expect2 === Expect.CommaOrEnd) {
        this.close(this.entry!);
        this.data!.push(this.entry!);
        this.entry = null;
      } else if (this.expect2 !== Expect.KeyOrEnd) return false;
      this.dataDepth = 0;
    } else if (this.depth === 1 && this.isObject[0]) {
      if (this.expect1 === Expect.CommaOrEnd) {
        this.close(this.member!);
        this.top.push(this.member!);
      } else if (this.expect1 !== Expect.KeyOrEnd) return false;
      this.member = null;
      this.expect1 = Expect.CommaOrEnd;
    }
    this.depth--;
    return true;
  }

  /** A number at i (digit or '-'): where the scan goes on, or -1. */
  private number(i: number, c: number): number {
    const text = this.text;
    if (!this.valueStarts(i)) this.topValid = false;
    if (c === 0x2d && text[i + 1] === 0x49) {
      if (!startsWith(text, '-Infinity', i)) return -1;
      this.specials.push(i, i + 9);
      this.push(Kind.MinusInfinity);
      this.notPlain();
      return (this.lastEnd = i + 9);
    }
    let k = c === 0x2d ? i + 1 : i;
    const digitsStart = k;
    let e = k < this.n ? text[k] : -1;
    while (e >= 0x30 && e <= 0x39) e = ++k < this.n ? text[k] : -1;
    const digits = k - digitsStart;
    if (e === 0x2e || e === 0x65 || e === 0x45) {
      e = ++k < this.n ? text[k] : -1;
      while ((e >= 0x30 && e <= 0x39) || e === 0x2b || e === 0x2d || e === 0x65 || e === 0x45 || e === 0x2e) e = ++k < this.n ? text[k] : -1;
      this.push(Kind.Float);
    } else if (digits > 15) {
      this.bigInts.push(this.decode(this.bytes, i, k));
      this.push(Kind.BigInt);
    } else this.push(Kind.Int);
    return (this.lastEnd = k);
  }

  /** A literal at i: where the scan goes on, or -1. */
  private literal(i: number, c: number): number {
    let word = '';
    if (c === 0x74) word = 'true';
    else if (c === 0x66) word = 'false';
    else if (c === 0x6e) word = 'null';
    else if (c === 0x4e) word = 'NaN';
    else if (c === 0x49) word = 'Infinity';
    if (!word || !startsWith(this.text, word, i)) return -1;
    if (!this.valueStarts(i)) this.topValid = false;
    if (c === 0x4e || c === 0x49) {
      this.specials.push(i, i + word.length);
      this.push(c === 0x4e ? Kind.NaN : Kind.Infinity);
      this.notPlain();
    }
    return (this.lastEnd = i + word.length);
  }

  run(): DocScan | null {
    const text = this.text;
    const n = this.n;
    let i = 0;
    while (i < n) {
      const c = text[i];
      if (c <= 0x20) {
        // JSON's four whitespace characters; any other control character (a NUL of a truncated file) is an error.
        if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return null;
        i++;
      } else if (c === 0x22) {
        i = this.string(i);
      } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
        i = this.number(i, c);
      } else if (c === 0x2c) {
        if (!this.comma()) return null;
        i++;
      } else if (c === 0x7b || c === 0x5b) {
        this.openContainer(i, c === 0x7b);
        i++;
      } else if (c === 0x7d || c === 0x5d) {
        if (!this.closeContainer(c === 0x7d)) return null;
        this.lastEnd = ++i;
      } else if (c === 0x3a) {
        // a ':' not after a key
        return null;
      } else i = this.literal(i, c);
      if (i < 0) return null;
    }
    if (this.depth !== 0) this.topValid = false;
    const isTopObject = this.topValid && this.isObject[0] === true && this.top.every((m) => m.valueEnd >= 0);
    return {
      kinds: this.kinds,
      count: this.count,
      bigInts: this.bigInts,
      specials: this.specials,
      keys: this.keys,
      keysPlain: this.keysPlain,
      top: isTopObject ? this.top : null,
      data: isTopObject ? this.data : null,
    };
  }
}
