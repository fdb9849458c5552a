import { isDigit, MAX_DEPTH, type JsonCursor } from './jsonCursor.js';

/**
 * Whole values on top of the tokenizer: skipped (validated, nothing built) or read as the one scalar the index
 * keeps. `depth` is the number of containers around the value, counted as parsePyJson counts them.
 */

const enum Ctx {
  Object = 1,
  Array = 2,
}
const enum State {
  Value,
  ValueOrEnd,
  KeyOrEnd,
  Key,
  Colon,
  AfterValue,
}

/** Skips one value starting at the next token. Iterative: nesting costs one byte of stack per level. */
export function skipValue(c: JsonCursor, depth: number): void {
  let stack = new Uint8Array(64);
  let top = 0;
  let state = State.Value;
  for (;;) {
    const ch = c.ws();
    // parsePyJson names the missing colon even at the end of the file; every other state reports truncation.
    if (ch < 0 && state !== State.Colon) c.fail('unexpected end of file (file truncated?)');
    switch (state) {
      case State.Value:
      case State.ValueOrEnd:
        if (ch === 0x5d && state === State.ValueOrEnd) {
          c.p++;
          top--;
          state = State.AfterValue;
          break;
        }
        if (depth + top > MAX_DEPTH) c.fail('nesting too deep');
        if (ch === 0x7b || ch === 0x5b) {
          if (top === stack.length) {
            const next = new Uint8Array(top * 2);
            next.set(stack);
            stack = next;
          }
          stack[top++] = ch === 0x7b ? Ctx.Object : Ctx.Array;
          c.p++;
          state = ch === 0x7b ? State.KeyOrEnd : State.ValueOrEnd;
          break;
        }
        skipScalar(c, ch);
        state = State.AfterValue;
        break;
      case State.KeyOrEnd:
      case State.Key:
        if (ch === 0x7d && state === State.KeyOrEnd) {
          c.p++;
          top--;
          state = State.AfterValue;
          break;
        }
        if (ch !== 0x22) c.fail(`expected a key string, found ${c.describe()}`);
        c.skipString();
        state = State.Colon;
        break;
      case State.Colon:
        if (ch !== 0x3a) c.fail(`expected ':' after key, found ${c.describe()}`);
        c.p++;
        state = State.Value;
        break;
      case State.AfterValue: {
        const ctx = stack[top - 1];
        if (ch === 0x2c) {
          c.p++;
          state = ctx === Ctx.Object ? State.Key : State.Value;
        } else if ((ctx === Ctx.Object && ch === 0x7d) || (ctx === Ctx.Array && ch === 0x5d)) {
          c.p++;
          top--;
        } else {
          c.fail(`expected ',' or '${ctx === Ctx.Object ? '}' : ']'}', found ${c.describe()}`);
        }
        break;
      }
    }
    if (state === State.AfterValue && top === 0) return;
  }
}

/** Skips a string, number or literal starting with byte ch at p. */
function skipScalar(c: JsonCursor, ch: number): void {
  if (ch === 0x22) c.skipString();
  else if (ch === 0x2d || isDigit(ch)) c.readNumber();
  else readLiteral(c, ch);
}

/** The literal (true, false, null, NaN, Infinity) starting with byte ch at p; anything else is a syntax error. */
export function readLiteral(c: JsonCursor, ch: number): boolean | null | number {
  switch (ch) {
    case 0x74:
      c.literal('true');
      return true;
    case 0x66:
      c.literal('false');
      return false;
    case 0x6e:
      c.literal('null');
      return null;
    case 0x4e:
      c.literal('NaN');
      return NaN;
    case 0x49:
      c.literal('Infinity');
      return Infinity;
    default:
      return c.fail(`unexpected ${c.describe()}`);
  }
}

/**
 * A scalar as a number the way the stores read numeric fields (toFiniteNumber before its finiteness check):
 * numbers and NaN / Infinity as themselves, numeric strings converted, anything else NaN (composites skipped).
 */
export function readNumberish(c: JsonCursor, depth: number): number {
  const ch = c.next();
  switch (ch) {
    case 0x22: {
      const s = c.readString();
      return s.trim() !== '' ? Number(s) : NaN;
    }
    case 0x4e:
    case 0x49:
      return readLiteral(c, ch) as number;
    case 0x74:
    case 0x66:
    case 0x6e:
    case 0x7b:
    case 0x5b:
      skipValue(c, depth);
      return NaN;
    default:
      if (ch === 0x2d || isDigit(ch)) return c.readNumber();
      return c.fail(`unexpected ${c.describe()}`);
  }
}

/** A string value, or null for any other value (skipped). */
export function readStringOrNull(c: JsonCursor, depth: number): string | null {
  if (c.next() === 0x22) return c.readString();
  skipValue(c, depth);
  return null;
}
