/**
 * A byte-level JSON tokenizer over a file read in chunks: no whole-file string (V8 strings stop near 2^29
 * characters, issue 4), bytes looked at once. It accepts exactly what `parsePyJson` accepts (Python's NaN / Infinity
 * tokens, msprobe-format.md §1.4.3) and fails with the same problems, plus the absolute byte offset.
 *
 * Values are skipped or read by jsonValues.ts on top of this cursor.
 *
 * Buffer indices shift when a chunk is refilled: `refill(keep)` moves `buf[keep..end)` to the front and returns the
 * shift, so a caller holding an index into a token subtracts it. `anchor` pins bytes a caller still needs
 * (a small value captured whole).
 */

export interface ByteSource {
  readonly size: number;
  /** Like fs.readSync: bytes copied into `into[at..at+length)` from file position `position`. */
  read(into: Uint8Array, at: number, length: number, position: number): number;
}

export class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {
    super(`byte ${offset}: ${problem}`);
    this.name = 'JsonSyntaxError';
  }
}

/** parsePyJson's limit, so both readers refuse the same files. */
export const MAX_DEPTH = 10_000;

const WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

const utf8 = new TextDecoder('utf-8');

export class JsonCursor {
  buf: Uint8Array;
  p = 0;
  end = 0;
  /** File offset of buf[0]. */
  base = 0;
  eof = false;
  /** Buffer index a caller still needs across refills, or -1. */
  anchor = -1;
  /** Start of the number being read (kept across refills like `anchor`), or -1. */
  private tok = -1;
  /** Set by readStringSpan: the raw bytes of the last string are buf[spanStart..spanEnd). */
  spanStart = 0;
  spanEnd = 0;
  spanEscaped = false;
  spanAscii = true;
  private filePos = 0;

  constructor(
    private readonly src: ByteSource,
    private readonly chunkSize: number,
    private readonly onRead?: (bytesRead: number) => void,
  ) {
    this.buf = new Uint8Array(Math.max(16, chunkSize));
  }

  /** Absolute file offset of buffer index `i`. */
  at(i = this.p): number {
    return this.base + i;
  }

  /** Reads the next chunk, keeping buf[min(keep, anchor)..end). Returns the shift applied to buffer indices. */
  refill(keep: number): number {
    if (this.eof) return 0;
    let from = keep;
    if (this.anchor >= 0 && this.anchor < from) from = this.anchor;
    if (this.tok >= 0 && this.tok < from) from = this.tok;
    const kept = this.end - from;
    if (from > 0) this.buf.copyWithin(0, from, this.end);
    this.base += from;
    this.p -= from;
    this.end = kept;
    if (this.anchor >= 0) this.anchor -= from;
    if (this.tok >= 0) this.tok -= from;
    if (this.buf.length - kept < this.chunkSize) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, kept + this.chunkSize));
      next.set(this.buf.subarray(0, kept));
      this.buf = next;
    }
    const want = Math.min(this.buf.length - kept, this.chunkSize);
    const got = want > 0 ? this.src.read(this.buf, kept, want, this.filePos) : 0;
    if (got === 0) this.eof = true;
    this.filePos += got;
    this.end += got;
    if (got > 0) this.onRead?.(this.filePos);
    return from;
  }

  fail(problem: string, i = this.p): never {
    throw new JsonSyntaxError(this.at(i), problem);
  }

  /** `'c'` for the character at buffer index i (UTF-8 decoded), or `end of file`. */
  describe(i = this.p): string {
    if (i >= this.end) return 'end of file';
    const c = this.buf[i];
    if (c < 0x80) return `'${String.fromCharCode(c)}'`;
    const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    return `'${utf8.decode(this.buf.subarray(i, Math.min(this.end, i + len)))[0]}'`;
  }

  /** Skips whitespace; returns the next byte (not consumed) or -1 at the end of the file. */
  ws(): number {
    for (;;) {
      const buf = this.buf;
      const end = this.end;
      let p = this.p;
      while (p < end) {
        const c = buf[p];
        if (WS[c] === 0) {
          this.p = p;
          return c;
        }
        p++;
      }
      this.p = p;
      if (this.eof) return -1;
      this.refill(p);
    }
  }

  /** Like ws(), but the end of the file is an error ("file truncated?"). */
  next(): number {
    const c = this.ws();
    if (c < 0) this.fail('unexpected end of file (file truncated?)');
    return c;
  }

  /*
   * Walking a container the scanner descends into (one place for the separators, so every walk refuses bad input
   * with skipValue's, and parsePyJson's, messages):
   *
   *   if (!c.openObject()) return;
   *   do { const key = c.key(); …read or skip the value… } while (c.nextMember());
   */

  /** At a '{': consumes it; false if the object is empty (then consumed whole). */
  openObject(): boolean {
    return this.open(0x7d);
  }

  /** At a '[': consumes it; false if the array is empty (then consumed whole). */
  openArray(): boolean {
    return this.open(0x5d);
  }

  /** After a member's value: true past a ',', false past the closing '}'. */
  nextMember(): boolean {
    return this.more(0x7d);
  }

  /** After an element: true past a ',', false past the closing ']'. */
  nextElement(): boolean {
    return this.more(0x5d);
  }

  private open(close: number): boolean {
    this.p++;
    if (this.next() !== close) return true;
    this.p++;
    return false;
  }

  private more(close: number): boolean {
    const ch = this.next();
    if (ch === 0x2c) {
      this.p++;
      return true;
    }
    if (ch === close) {
      this.p++;
      return false;
    }
    return this.fail(`expected ',' or '${String.fromCharCode(close)}', found ${this.describe()}`);
  }

  /** A member's key, left as the span (bytes compared without building a string); the colon is not consumed. */
  keySpan(): void {
    if (this.next() !== 0x22) this.fail(`expected a key string, found ${this.describe()}`);
    this.readStringSpan();
  }

  /** Consumes the ':' after a key. A refill here moves the key's span, so read the span first. */
  colon(): void {
    if (this.ws() !== 0x3a) this.fail(`expected ':' after key, found ${this.describe()}`);
    this.p++;
  }

  /** A member's key, decoded, and its colon. */
  key(): string {
    this.keySpan();
    const key = this.spanText();
    this.colon();
    return key;
  }

  /** Ensures buf[p..p+n) is loaded unless the file ends first. */
  ensure(n: number): void {
    while (this.end - this.p < n && !this.eof) this.refill(this.p);
  }

  /**
   * Scans the string starting at the opening quote at p; its raw bytes end up in buf[spanStart..spanEnd) and p
   * after the closing quote. The span stays valid until the next refill.
   */
  readStringSpan(): void {
    let start = this.p + 1;
    let p = start;
    let escaped = false;
    let high = 0;
    for (;;) {
      const buf = this.buf;
      const end = this.end;
      while (p < end) {
        const c = buf[p];
        if (c === 0x22) {
          this.spanStart = start;
          this.spanEnd = p;
          this.spanEscaped = escaped;
          this.spanAscii = high < 0x80;
          this.p = p + 1;
          return;
        }
        if (c === 0x5c) {
          if (end - p < 6 && !this.eof) break;
          escaped = true;
          p = this.escape(p);
          continue;
        }
        if (c < 0x20) this.fail('control character in string', p);
        high |= c;
        p++;
      }
      if (this.eof) this.fail('unterminated string (file truncated?)', this.end);
      this.p = p;
      const shift = this.refill(start);
      start -= shift;
      p -= shift;
    }
  }

  /** The string at p, decoded. */
  readString(): string {
    this.readStringSpan();
    return this.spanText();
  }

  /** The last span as a JS string. */
  spanText(): string {
    const raw = this.buf.subarray(this.spanStart, this.spanEnd);
    if (!this.spanEscaped) return this.spanAscii ? latin1(raw) : utf8.decode(raw);
    // Validated above: no raw quotes or control characters, every escape well-formed.
    return JSON.parse(`"${this.spanAscii ? latin1(raw) : utf8.decode(raw)}"`) as string;
  }

  /**
   * Skips a string without keeping it: the hot path for input/output items. Kept apart from readStringSpan on
   * purpose: not tracking escapes and high bytes saves ~6% of the indexing time.
   */
  skipString(): void {
    let p = this.p + 1;
    for (;;) {
      const buf = this.buf;
      const end = this.end;
      while (p < end) {
        const c = buf[p];
        if (c === 0x22) {
          this.p = p + 1;
          return;
        }
        if (c === 0x5c) {
          if (end - p < 6 && !this.eof) break;
          p = this.escape(p);
          continue;
        }
        if (c < 0x20) this.fail('control character in string', p);
        p++;
      }
      if (this.eof) this.fail('unterminated string (file truncated?)', this.end);
      this.p = p;
      p -= this.refill(p);
    }
  }

  /** Validates the escape at buffer index p (a backslash); returns the index after it. */
  private escape(p: number): number {
    if (p + 1 >= this.end) this.fail('unterminated string (file truncated?)', this.end);
    const e = this.buf[p + 1];
    if (SIMPLE_ESCAPE[e]) return p + 2;
    if (e === 0x75) {
      const b = this.buf;
      if (p + 5 < this.end && HEX[b[p + 2]] && HEX[b[p + 3]] && HEX[b[p + 4]] && HEX[b[p + 5]]) return p + 6;
      this.fail('bad \\u escape in string', p + 1);
    }
    this.fail(`bad escape '\\${this.describe(p + 1).slice(1, -1)}' in string`, p + 1);
  }

  /** Reads the number at p (JSON grammar, or -Infinity), as parsePyJson's js mode does. */
  readNumber(): number {
    this.tok = this.p;
    try {
      let k = 0;
      if (this.byteRel(0) === 0x2d) {
        this.ensure(9);
        if (this.matchLiteral('-Infinity')) {
          this.p += 9;
          return -Infinity;
        }
        k = 1;
      }
      const first = this.byteRel(k);
      if (first === 0x30) k++;
      else if (first > 0x30 && first <= 0x39) while (isDigit(this.byteRel(++k)));
      else this.fail(`unexpected ${this.describe(this.tok)}`, this.tok);
      if (this.byteRel(k) === 0x2e && isDigit(this.byteRel(k + 1))) {
        k += 2;
        while (isDigit(this.byteRel(k))) k++;
      }
      const e = this.byteRel(k);
      if (e === 0x65 || e === 0x45) {
        let j = k + 1;
        const sign = this.byteRel(j);
        if (sign === 0x2b || sign === 0x2d) j++;
        if (isDigit(this.byteRel(j))) {
          k = j + 1;
          while (isDigit(this.byteRel(k))) k++;
        }
      }
      const s = this.tok;
      this.p = s + k;
      return Number(latin1(this.buf.subarray(s, s + k)));
    } finally {
      this.tok = -1;
    }
  }

  /** The byte k positions after the number's start, or -1 past the end of the file. */
  private byteRel(k: number): number {
    while (this.tok + k >= this.end) {
      if (this.eof) return -1;
      this.refill(this.tok);
    }
    return this.buf[this.tok + k];
  }

  private matchLiteral(word: string): boolean {
    if (this.end - this.p < word.length) return false;
    for (let k = 0; k < word.length; k++) if (this.buf[this.p + k] !== word.charCodeAt(k)) return false;
    return true;
  }

  /** Consumes `word` at p or fails like parsePyJson ("unexpected 'x'"). */
  literal(word: string): void {
    this.ensure(word.length);
    if (!this.matchLiteral(word)) this.fail(`unexpected ${this.describe()}`);
    this.p += word.length;
  }
}

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** ASCII bytes → string without a decoder round trip (short tokens). */
function latin1(bytes: Uint8Array): string {
  if (bytes.length < 64) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
}
