import { PyJsonError, parsePyJson, type PyValue } from '../formats/pyJson.js';

/**
 * Reads dump.json incrementally, one `data` entry at a time, so a file of several hundred megabytes is never one
 * string (a JS string of the whole file, and the parsed tree of it, would each be bigger than the compare table).
 *
 * The scanner only finds where each top-level value and each entry of `data` begins and ends (strings, escapes and
 * bracket depth); the entry's text is then parsed by the Python-mode JSON reader. Errors carry the file's line and
 * column, also for problems inside an entry.
 */

export interface DumpScanSink {
  /** A top-level key other than `data` (`task`, `level`, `framework`, …), parsed. */
  top(key: string, value: PyValue): void;
  /**
   * One entry of `data`, in file order: its JSON text, and `parse()` for the Python-mode tree (errors then carry
   * the file's line and column).
   */
  entry(key: string, text: string, parse: () => PyValue): void;
  /** `data` is an object (called once, before its entries). */
  dataStart?(): void;
}

const enum Mode {
  /** Before the opening `{` of the file. */
  Start,
  /** Expecting a key (or `}`) in the top object (`data` = false) or the data object. */
  Key,
  /** After a key, expecting `:`. */
  Colon,
  /** Expecting a value. */
  Value,
  /** Inside a value (possibly across chunks). */
  InValue,
  /** After a value, expecting `,` or `}`. */
  AfterValue,
  /** After the closing `}` of the file. */
  End,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const decoder = new TextDecoder();

export class DumpJsonScanner {
  private carry = new Uint8Array(0);
  /** Byte offset (in the file) of carry[0]. */
  private carryBase = 0;
  private mode = Mode.Start;
  private inData = false;
  private afterKeyInTop = false;
  private key = '';
  private keyIsData = false;
  // InValue state
  private valueStart = 0;
  private valueLine = 1;
  private valueCol = 1;
  private depth = 0;
  private inString = false;
  private escape = false;
  private scalar = false;
  // position tracking (file-relative)
  private line = 1;
  private lineStart = 0;
  /** Set when a key was scanned but its text spans the chunk end. */
  private keyStart = -1;

  /** `entriesAtTop`: the file is itself the entry dict (stack.json), not `{…, "data": {entries}}`. */
  constructor(
    private readonly file: string,
    private readonly sink: DumpScanSink,
    private readonly entriesAtTop = false,
  ) {}

  private fail(problem: string, at: number): never {
    throw new PyJsonError(this.file, this.line, at - this.lineStart + 1, problem);
  }

  /** A key's text (quotes included) as a string; a raw control character or bad escape is reported where it is. */
  private keyString(raw: string, at: number): string {
    try {
      return JSON.parse(raw) as string;
    } catch {
      try {
        parsePyJson(raw, { mode: 'python', file: this.file });
      } catch (e) {
        if (e instanceof PyJsonError) throw new PyJsonError(this.file, this.line, at - this.lineStart + e.column, e.problem);
      }
      this.fail('malformed key string', at);
    }
  }

  push(chunk: Uint8Array): void {
    let buf: Uint8Array;
    if (this.carry.length === 0) buf = chunk;
    else {
      buf = new Uint8Array(this.carry.length + chunk.length);
      buf.set(this.carry);
      buf.set(chunk, this.carry.length);
    }
    const base = this.carryBase;
    const keep = this.scan(buf, base);
    // A copy: the caller may reuse its buffer, and Node's Buffer#slice would only be a view.
    this.carry = keep < buf.length ? Uint8Array.prototype.slice.call(buf, keep) : new Uint8Array(0);
    this.carryBase = base + keep;
  }

  end(): void {
    if (this.mode !== Mode.End) {
      const at = this.carryBase + this.carry.length;
      this.fail(this.mode === Mode.Start ? 'empty file' : 'unexpected end of file (file truncated?)', at);
    }
  }

  /** Scans `buf` (file offset `base`); returns how many leading bytes are consumed (the rest is carried over). */
  private scan(buf: Uint8Array, base: number): number {
    const n = buf.length;
    let i = 0;
    // Resume inside a value or a key: the carry starts at its first byte.
    if (this.mode === Mode.InValue) i = this.resumeValue(buf, base);
    else if (this.keyStart >= 0) i = this.keyStart - base;
    while (i < n) {
      const c = buf[i];
      if (c === 0x0a) {
        this.line++;
        this.lineStart = base + i + 1;
        i++;
        continue;
      }
      if (c === 0x20 || c === 0x09 || c === 0x0d) {
        i++;
        continue;
      }
      const at = base + i;
      switch (this.mode) {
        case Mode.Start:
          if (c === 0xef && buf[i + 1] === 0xbb && buf[i + 2] === 0xbf) {
            i += 3;
            continue;
          }
          if (c !== 0x7b) this.fail('the top level must be a JSON object', at);
          this.mode = Mode.Key;
          i++;
          this.afterKeyInTop = false;
          continue;
        case Mode.Key: {
          if (c === 0x7d && !this.afterKeyInTop) {
            this.closeObject();
            i++;
            continue;
          }
          if (c !== QUOTE) this.fail(`expected a key string, found '${String.fromCharCode(c)}'`, at);
          const end = stringEnd(buf, i + 1);
          if (end < 0) {
            this.keyStart = at;
            return i;
          }
          this.keyStart = -1;
          this.key = this.keyString(decoder.decode(buf.subarray(i, end + 1)), at);
          this.mode = Mode.Colon;
          i = end + 1;
          continue;
        }
        case Mode.Colon:
          if (c !== 0x3a) this.fail(`expected ':' after key, found '${String.fromCharCode(c)}'`, at);
          this.mode = Mode.Value;
          i++;
          continue;
        case Mode.Value:
          this.keyIsData = !this.inData && !this.entriesAtTop && this.key === 'data';
          if (this.keyIsData && c === 0x7b) {
            // The data object itself is walked entry by entry.
            this.inData = true;
            this.sink.dataStart?.();
            this.mode = Mode.Key;
            this.afterKeyInTop = false;
            i++;
            continue;
          }
          this.valueStart = at;
          this.valueLine = this.line;
          this.valueCol = at - this.lineStart + 1;
          this.depth = 0;
          this.inString = false;
          this.escape = false;
          this.scalar = c !== 0x7b && c !== 0x5b && c !== QUOTE;
          this.mode = Mode.InValue;
          {
            const r = this.resumeValue(buf, base);
            if (this.mode === Mode.InValue) return this.valueStart - base;
            i = r;
          }
          continue;
        case Mode.AfterValue:
          if (c === 0x2c) {
            this.mode = Mode.Key;
            this.afterKeyInTop = true;
            i++;
            continue;
          }
          if (c === 0x7d) {
            this.closeObject();
            i++;
            continue;
          }
          this.fail(`expected ',' or '}', found '${String.fromCharCode(c)}'`, at);
          break;
        case Mode.End:
          this.fail(`unexpected '${String.fromCharCode(c)}' after the end of the JSON value`, at);
          break;
        case Mode.InValue:
          // unreachable: handled by resumeValue
          i++;
          break;
      }
    }
    return this.mode === Mode.InValue ? this.valueStart - base : n;
  }

  private closeObject(): void {
    if (this.inData) {
      this.inData = false;
      this.mode = Mode.AfterValue;
    } else this.mode = Mode.End;
  }

  /**
   * Continues scanning the current value from where the last chunk stopped (or from its start). Returns the index
   * after the value when it ended (mode becomes AfterValue), else `buf.length` with mode still InValue.
   */
  private resumeValue(buf: Uint8Array, base: number): number {
    const n = buf.length;
    let i = this.valueStart - base + this.scannedInValue;
    let depth = this.depth;
    let inString = this.inString;
    let escape = this.escape;
    if (this.scalar) {
      while (i < n) {
        const c = buf[i];
        if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
        i++;
      }
      if (i >= n) {
        this.scannedInValue = i - (this.valueStart - base);
        return n;
      }
      this.emitValue(buf, base, i);
      return i;
    }
    for (; i < n; i++) {
      const c = buf[i];
      if (inString) {
        if (escape) escape = false;
        else if (c === BACKSLASH) escape = true;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 0) {
            i++;
            break;
          }
        }
        continue;
      }
      if (c === QUOTE) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      } else if (c === 0x0a) {
        this.line++;
        this.lineStart = base + i + 1;
      }
    }
    if (depth > 0 || inString) {
      this.depth = depth;
      this.inString = inString;
      this.escape = escape;
      this.scannedInValue = n - (this.valueStart - base);
      return n;
    }
    this.emitValue(buf, base, i);
    return i;
  }

  private scannedInValue = 0;

  private emitValue(buf: Uint8Array, base: number, endIndex: number): void {
    const text = decoder.decode(buf.subarray(this.valueStart - base, endIndex));
    this.scannedInValue = 0;
    this.mode = Mode.AfterValue;
    const line = this.valueLine;
    const col = this.valueCol;
    const parse = () => {
      try {
        return parsePyJson(text, { mode: 'python', file: this.file }) as PyValue;
      } catch (e) {
        if (!(e instanceof PyJsonError)) throw e;
        throw new PyJsonError(this.file, line + e.line - 1, e.line === 1 ? col + e.column - 1 : e.column, e.problem);
      }
    };
    if (this.inData || this.entriesAtTop) this.sink.entry(this.key, text, parse);
    else this.sink.top(this.key, parse());
  }
}

/** Index of the closing quote of a string whose content starts at `from`, or -1 if it does not end in `buf`. */
function stringEnd(buf: Uint8Array, from: number): number {
  let escape = false;
  for (let i = from; i < buf.length; i++) {
    const c = buf[i];
    if (escape) escape = false;
    else if (c === BACKSLASH) escape = true;
    else if (c === QUOTE) return i;
  }
  return -1;
}
