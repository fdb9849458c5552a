import { describe, expect, it } from 'vitest';
import { expectSameAnswers, indexStore, openBoth } from '../helpers/visIndexOracle.js';
import { generateVisText, rng } from './visindexGen.js';

/** Generated files through the streamed index and through whole-file parsing, at chunk sizes that split every token. */

const CASES = [
  { seed: 1, nodes: 60, compare: true, pretty: true },
  { seed: 2, nodes: 80, compare: false, pretty: false, bom: true },
  { seed: 3, nodes: 40, compare: true, pretty: false, deepChain: 1200 },
  { seed: 4, nodes: 200, compare: false, pretty: true },
];

describe('streamed index = whole-file parse on generated files', () => {
  for (const c of CASES) {
    const bytes = Buffer.from(generateVisText(c), 'utf8');
    for (const chunk of [1, 2, 3, 5, 13, 64, 1 << 20]) {
      // The smallest chunks cost a refill per byte: the small cases only.
      if (chunk < 5 && c.nodes > 60) continue;
      it(`seed ${c.seed} (${bytes.length} bytes), chunk ${chunk}`, () => {
        const { whole, indexed } = openBoth(bytes, chunk);
        if (typeof whole === 'string' || typeof indexed === 'string') throw new Error(`${whole} / ${indexed}`);
        const visited = expectSameAnswers(whole, indexed, ['模块', '😀', 'A"Q', 'BACK\\', 'ünï', '__proto__', 'orphan']);
        expect(visited).toBeGreaterThan(c.nodes);
      });
    }
  }
});

describe('repeated keys: the last one counts, in both readers', () => {
  it.each([
    '{"root": "A", "node": {"A": {"subnodes": ["B"]}, "B": {}}, "node": {"R": {"subnodes": ["S", "S", "x"]}, "S": {"data": {"precision_index": 0.5}}}, "root": "R"}',
    '{"NPU": {"root": "R", "node": {"R": {}}}, "NPU": {"node": {"Q": {"subnodes": ["Q"]}}, "root": "Q"}, "Bench": {"root": "R", "node": {"R": {}}}}',
    '{"root": "R", "node": {"R": {"subnodes": ["A"], "subnodes": ["B"], "data": {"overflow_level": "high"}, "data": 3}, "A": {}, "B": {"micro_step_id": "2"}}}',
  ])('%s', (text) => {
    for (const chunk of [1, 4, 64]) {
      const { whole, indexed } = openBoth(Buffer.from(text), chunk);
      if (typeof whole === 'string' || typeof indexed === 'string') throw new Error(`${whole} / ${indexed}`);
      expect(expectSameAnswers(whole, indexed)).toBeGreaterThan(0);
    }
  });
});

describe('broken files fail alike in both readers', () => {
  const text = generateVisText({ seed: 7, nodes: 25, compare: true, pretty: true });
  const bytes = Buffer.from(text, 'utf8');
  const r = rng(99);

  it('truncated at 150 offsets: same problem, the byte offset is the end of the file', () => {
    for (let k = 0; k < 150; k++) {
      const cut = k === 0 ? 0 : Math.floor(r() * bytes.length);
      const part = bytes.subarray(0, cut);
      const { whole, indexed } = openBoth(part, 7);
      expect(typeof whole, `cut ${cut}`).toBe('string');
      expect(indexed, `cut ${cut}`).toBe(whole);
      if (k < 20 && /end of file|unterminated/.test(String(whole))) {
        expect(() => indexStore(part, 7)).toThrow(new RegExp(`\\(byte ${cut}\\)$`));
      }
    }
  });

  it('ASCII bytes replaced at 300 places: accepted or refused alike, with the same message', () => {
    const replacements = '{}[],:"\\ 0-eENItfn/u.#';
    let refused = 0;
    for (let k = 0; k < 300; k++) {
      const copy = Buffer.from(bytes);
      let at = Math.floor(r() * copy.length);
      while (copy[at] >= 0x80) at = (at + 1) % copy.length;
      copy[at] = replacements.charCodeAt(Math.floor(r() * replacements.length));
      const { whole, indexed } = openBoth(copy, 5);
      if (typeof whole === 'string') {
        refused++;
        expect(indexed, `byte ${at} → ${String.fromCharCode(copy[at])}`).toBe(whole);
      } else {
        expect(typeof indexed, `byte ${at} → ${String.fromCharCode(copy[at])}: ${indexed}`).toBe('object');
      }
    }
    expect(refused).toBeGreaterThan(50);
  });

  it('shape and syntax errors: the whole-file messages, positions included', () => {
    const cases: Array<[string, RegExp]> = [
      ['[1, 2]', /^not a \.vis graph: the top level is not a JSON object$/],
      ['{"a": 1}', /^not a \.vis graph: no "NPU" \(compare\) or "root"\/"node" \(build\) key at the top level$/],
      ['{"NPU": 3, "Bench": {}}', /^"NPU" is missing or not an object$/],
      ['{"NPU": {"root": "R", "node": {"R": {}}}}', /^"Bench" is missing or not an object$/],
      ['{"root": 1, "node": {}}', /^the top level has no string "root"$/],
      ['{"root": "R", "node": []}', /^the top level has no "node" object$/],
      ['{"root": "R", "node": {"R": 5}}', /^root "R" of the top level is not in its "node" object$/],
      ['{"root": "R", "node": {"R": {}, "R": null}}', /^root "R" of the top level is not in its "node" object$/],
      ['', /^line 1:1: unexpected end of file \(file truncated\?\)$/],
      ['{"root": "R", "node": {"R": {}}} x', /^line 1:34: unexpected 'x' after the end of the JSON value$/],
      ['{"root" "R"}', /^line 1:9: expected ':' after key, found '"'$/],
      ['{"root"', /^line 1:8: expected ':' after key, found end of file$/],
      ['{"root": "\\x"}', /^line 1:\d+: bad escape '\\x' in string$/],
      ['{"root": "R", "node": {"R": {"a": -}}}', /^line 1:35: unexpected '-'$/],
      ['{"root": "R", "node": {"R": {"a": "\\u12"}}}', /^line 1:\d+: bad \\u escape in string$/],
      ['{"root": "R", "node": {"R": {"a": 01}}}', /^line 1:\d+: expected ',' or '}', found '1'$/],
      ['{"root": "R", "node": {"R": {"a": "x\ty"}}}', /^line 1:\d+: control character in string$/],
    ];
    for (const [t, problem] of cases) {
      const { whole, indexed } = openBoth(Buffer.from(t), 3);
      expect(whole, t.slice(0, 60)).toMatch(problem);
      expect(indexed, t.slice(0, 60)).toBe(whole);
    }
    // The whole-file parser recurses and runs out of stack first; the index counts depth like it would.
    const deep = `{"root": "R", "node": {"R": {"a": ${'['.repeat(10_001)}`;
    expect(() => indexStore(Buffer.from(deep), 64)).toThrow(/^line 1:10033: nesting too deep \(byte 10032\)$/);
  });
});
