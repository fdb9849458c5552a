import { describe, expect, it } from 'vitest';
import { bufferSource } from '../../server/store/visJsonIndex/byteSource.js';
import { MAX_ENTRIES, readCappedJson, readCappedJsonStreamed, STRING_CAP } from '../../server/store/visJsonIndex/cappedJson.js';
import { seededRandom } from '../helpers/seededRandom.js';

/**
 * Node records under 1 MiB are parsed whole first and kept only when no cap could have cut them: the answer must be
 * the capped reader's for every record, near every cap (string length, escapes, entries, depth, long numbers).
 */

const enc = new TextEncoder();
const both = (text: string) => {
  const src = bufferSource(enc.encode(text));
  return { fast: readCappedJson(src), streamed: readCappedJsonStreamed(src) };
};

describe('capped node records: the whole-parse path answers as the capped reader', () => {
  it('on records near each cap', () => {
    const filler = Array.from({ length: 60 }, (_, i) => `"k${i}": "${'v'.repeat(40)}"`).join(', ');
    const cases = [
      `{${filler}}`,
      `{"s": "${'a'.repeat(STRING_CAP - 10)}", ${filler}}`,
      `{"s": "${'a'.repeat(STRING_CAP + 10)}", ${filler}}`,
      `{"s": "${'\\u00e9'.repeat(STRING_CAP / 6 + 5)}", ${filler}}`,
      `{"s": "${'é'.repeat(STRING_CAP / 2 + 5)}", ${filler}}`,
      `[${Array.from({ length: MAX_ENTRIES - 1 }, (_, i) => i).join(',')}]`,
      `[${Array.from({ length: MAX_ENTRIES + 5 }, (_, i) => i).join(',')}]`,
      `{${Array.from({ length: MAX_ENTRIES + 5 }, (_, i) => `"k${i}": ${i}`).join(',')}}`,
      `{"n": ${'9'.repeat(1500)}, ${filler}}`,
      `${'['.repeat(999)}1${']'.repeat(999)}`,
      `${'['.repeat(1001)}1${']'.repeat(1001)}`,
      `{"inputs": {"x": {"Max": NaN, "Min": -Infinity, "Mean": 1e-300}}, ${filler}}`,
    ];
    for (const text of cases) {
      const { fast, streamed } = both(text);
      expect(fast, text.slice(0, 60)).toEqual(streamed);
    }
  });

  it('on random records between 2 KB and 1 MiB', () => {
    const rand = seededRandom(11);
    const value = (depth: number): string => {
      const r = rand();
      if (depth > 3 || r < 0.4) return r < 0.2 ? JSON.stringify('x'.repeat(Math.floor(rand() * 20_000))) : String(Math.floor(rand() * 1e6) / 7);
      const n = Math.floor(rand() * 40);
      return rand() < 0.5
        ? `[${Array.from({ length: n }, () => value(depth + 1)).join(',')}]`
        : `{${Array.from({ length: n }, (_, i) => `"k${i}":${value(depth + 1)}`).join(',')}}`;
    };
    for (let k = 0; k < 40; k++) {
      const text = `{"a": ${value(0)}, "pad": "${'p'.repeat(2000)}"}`;
      const { fast, streamed } = both(text);
      expect(fast).toEqual(streamed);
    }
  });

  it('a malformed record is the capped reader\'s error', () => {
    const text = `{"a": [1, 2, ${'3, '.repeat(1000)}}`;
    expect(() => readCappedJson(bufferSource(enc.encode(text)))).toThrow(/offset|expected|unexpected/);
  });
});
