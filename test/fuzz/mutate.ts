import { seededRandom } from '../helpers/seededRandom.js';

/**
 * Seeded mutators for the fuzz suites: the same seed gives the same mutant on every run, so a failure names a seed
 * that reproduces it. Text mutators aim at what parsers get wrong (a value swapped for a hostile one, deep nesting,
 * control characters, cut files); byte mutators at binary headers and pages.
 */

export type Rand = () => number;

export function rng(seed: number): Rand {
  // Two draws per seed: the LCG's first outputs for nearby seeds are close together.
  const r = seededRandom(seed * 2654435761);
  r();
  return r;
}

export const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const int = (r: Rand, n: number) => Math.floor(r() * n);

/** Values that break readers: wrong types, extremes, deep nesting, odd escapes, long text. */
export function hostileValue(r: Rand): string {
  switch (int(r, 16)) {
    case 0:
      return '['.repeat(12000) + ']'.repeat(12000);
    case 1:
      return '{"a":'.repeat(3000) + '1' + '}'.repeat(3000);
    case 2:
      return '"' + 'x'.repeat(200_000 + int(r, 100_000)) + '"';
    case 3:
      return pick(r, ['NaN', 'Infinity', '-Infinity', '1e400', '-0', '123456789012345678901234567890', '0.1e-400']);
    case 4:
      return pick(r, ['null', 'true', 'false', '{}', '[]', '""', '0']);
    case 5:
      return pick(r, ['"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"a\\"b"', '"\u0001raw"', '"\\x41"']);
    case 6:
      return '[' + Array.from({ length: 2000 }, (_, i) => i).join(',') + ']';
    case 7:
      return '{"' + Array.from({ length: 500 }, (_, i) => `k${i % 50}":${i},"`).join('') + 'z":0}';
    case 8:
      return pick(r, ['"<script>alert(1)</script>"', '"../../etc/passwd"', '"%00"', '"\\n\\r\\t"']);
    case 9:
      return pick(r, ['1', '-1', '2147483648', '-9007199254740993', '1.5']);
    case 10:
      return '[' + Array.from({ length: 50 }, () => hostileScalar(r)).join(',') + ']';
    default:
      return hostileScalar(r);
  }
}

function hostileScalar(r: Rand): string {
  return pick(r, ['null', '1', '"s"', 'true', '[]', '{}', '-1e308', '"N/A"', '"None"', '[null]', '{"type":1}']);
}

/** Start offsets of JSON values after a `:` or `[` / `,` (approximate: good enough to land inside the structure). */
function valueStarts(text: string, r: Rand, n: number): number[] {
  const out: number[] = [];
  for (let tries = 0; tries < n * 20 && out.length < n; tries++) {
    const i = int(r, text.length);
    const c = text[i];
    if (c === ':' || c === '[' || c === ',') out.push(i + 1);
  }
  return out;
}

/** End of the JSON value starting at `i` (skips strings and nesting; stops at the enclosing `,` `]` `}`). */
function valueEnd(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      for (j++; j < text.length && text[j] !== '"'; j++) if (text[j] === '\\') j++;
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      if (depth === 0) return j;
      depth--;
    } else if (c === ',' && depth === 0) return j;
  }
  return text.length;
}

/** One mutant of a JSON (or YAML) text. */
export function mutateText(text: string, r: Rand): string {
  switch (int(r, 8)) {
    case 0: // a value replaced by a hostile one
    case 1: {
      let out = text;
      for (const start of valueStarts(out, r, 1 + int(r, 3)).sort((a, b) => b - a)) {
        out = out.slice(0, start) + hostileValue(r) + out.slice(valueEnd(out, start));
      }
      return out;
    }
    case 2: // cut short
      return text.slice(0, int(r, text.length));
    case 3: {
      // a span deleted
      const a = int(r, text.length);
      return text.slice(0, a) + text.slice(a + 1 + int(r, 200));
    }
    case 4: {
      // a span repeated (duplicate keys, unbalanced brackets)
      const a = int(r, text.length);
      const span = text.slice(a, a + 1 + int(r, 300));
      return text.slice(0, a) + span + span + text.slice(a + span.length);
    }
    case 5: {
      // characters flipped, control characters and quotes among them
      const chars = text.split('');
      for (let k = 0; k < 1 + int(r, 8); k++) chars[int(r, chars.length)] = pick(r, ['"', '\\', '\u0000', '\n', '{', ']', ':', ',', '\u2028', 'é', String.fromCharCode(int(r, 128))]);
      return chars.join('');
    }
    case 6: // a hostile value for the whole document
      return hostileValue(r);
    default: {
      // keys renamed: the reader meets unknown or missing fields
      return text.replace(/"([A-Za-z_]+)":/g, (whole, key: string) => (r() < 0.15 ? `"${key}${pick(r, ['_', 'X', ''])}x":` : whole));
    }
  }
}

/** One mutant of binary bytes (npy, .pt, SQLite): flips, cuts, repeated spans, overwritten pages. */
export function mutateBytes(bytes: Uint8Array, r: Rand, pageSize = 4096): Uint8Array {
  const out = Uint8Array.from(bytes);
  switch (int(r, 6)) {
    case 0:
    case 1: {
      const headerBias = r() < 0.5 ? Math.min(out.length, 256) : out.length;
      for (let k = 0; k < 1 + int(r, 16); k++) out[int(r, headerBias)] = int(r, 256);
      return out;
    }
    case 2:
      return out.subarray(0, int(r, out.length));
    case 3: {
      // one page overwritten with noise or zeros
      const pages = Math.max(1, Math.floor(out.length / pageSize));
      const p = int(r, pages) * pageSize;
      const zero = r() < 0.3;
      for (let i = p; i < Math.min(out.length, p + pageSize); i++) out[i] = zero ? 0 : int(r, 256);
      return out;
    }
    case 4: {
      const a = int(r, out.length);
      const span = out.subarray(a, a + 1 + int(r, 512));
      const joined = new Uint8Array(out.length + span.length);
      joined.set(out.subarray(0, a + span.length));
      joined.set(span, a + span.length);
      joined.set(out.subarray(a + span.length), a + 2 * span.length);
      return joined;
    }
    default: {
      // 32-bit fields set to extremes (sizes, counts, offsets)
      for (let k = 0; k < 1 + int(r, 4); k++) {
        const at = int(r, Math.max(1, out.length - 4));
        const v = pick(r, [0xffffffff, 0x7fffffff, 0, 0x80000000, 1]);
        out[at] = v & 0xff;
        out[at + 1] = (v >>> 8) & 0xff;
        out[at + 2] = (v >>> 16) & 0xff;
        out[at + 3] = (v >>> 24) & 0xff;
      }
      return out;
    }
  }
}

/**
 * The seeds to run per reader: `npm run fuzz` sets PROBEBOARD_FUZZ_N (1,000), `npm test` runs a quick slice, and
 * PROBEBOARD_FUZZ_SEED=k replays the one seed a failure names.
 */
export function fuzzSeeds(quick: number): number[] {
  const one = Number(process.env.PROBEBOARD_FUZZ_SEED);
  if (process.env.PROBEBOARD_FUZZ_SEED && Number.isInteger(one)) return [one];
  const n = Number(process.env.PROBEBOARD_FUZZ_N);
  return Array.from({ length: Number.isInteger(n) && n > 0 ? n : quick }, (_, i) => i);
}

/** A test's time limit for `seeds` runs of up to ~0.5 s each (vitest's default would cut a full run short). */
export const fuzzTimeout = (seeds: number[]): number => 60_000 + seeds.length * 500;

/** The figures of one reader's run, printed as a table row (README, `npm run fuzz`). */
export interface FuzzTally {
  reader: string;
  inputs: number;
  accepted: number;
  refused: number;
  failures: string[];
  slowestMs: number;
  requests?: number;
  budget503?: number;
}

export function tallyLine(t: FuzzTally): string {
  const req = t.requests === undefined ? '' : ` | ${t.requests} requests, ${t.budget503 ?? 0}× 503 budget`;
  return `fuzz ${t.reader}: ${t.inputs} inputs, ${t.accepted} accepted, ${t.refused} refused with a message, ${t.failures.length} failures, slowest ${t.slowestMs.toFixed(0)} ms${req}`;
}
