import { describe, expect, it } from 'vitest';
import { parseJsonFast, parsePyJson, PyJsonError } from '../../src/core/formats/pyJson.js';

describe('parsePyJson', () => {
  it('accepts the NaN / Infinity tokens Python writes', () => {
    const v = parsePyJson('{"a": NaN, "b": Infinity, "c": -Infinity, "d": [1, -2.5e3]}') as Record<string, unknown>;
    expect(Number.isNaN(v.a)).toBe(true);
    expect(v.b).toBe(Infinity);
    expect(v.c).toBe(-Infinity);
    expect(v.d).toEqual([1, -2500]);
  });

  it('python mode keeps int vs float and key order, including integer-like keys', () => {
    const v = parsePyJson('{"z": 423, "1": 423.0, "0": 1e3, "big": 12345678901234567890}', { mode: 'python' }) as Map<string, unknown>;
    expect([...v.keys()]).toEqual(['z', '1', '0', 'big']);
    expect(v.get('z')).toBe(423n);
    expect(v.get('1')).toBe(423);
    expect(v.get('0')).toBe(1000);
    expect(v.get('big')).toBe(12345678901234567890n);
  });

  it('js mode treats __proto__ as an ordinary key', () => {
    const v = parsePyJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(v)).toEqual(['__proto__']);
  });

  it('decodes escapes and unicode', () => {
    expect(parsePyJson('"\\u4e0e\\n\\"x\\"\\\\"')).toBe('与\n"x"\\');
  });

  it.each([
    ['{"a": 1', 'unexpected end of file', 1, 8],
    ['{"a": 1,\n "b": tru}', "unexpected 't'", 2, 7],
    ['[1, 2] x', "unexpected 'x' after the end", 1, 8],
    ['{"a": "abc', 'unterminated string', 1, 11],
    ['{a: 1}', 'expected a key string', 1, 2],
  ])('reports %j with line and column', (text, problem, line, column) => {
    try {
      parsePyJson(text, { file: 'dump.json' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PyJsonError);
      const err = e as PyJsonError;
      expect(err.message).toContain('dump.json:');
      expect(err.problem).toContain(problem);
      expect([err.line, err.column]).toEqual([line, column]);
    }
  });
});

describe('parseJsonFast', () => {
  it('answers as parsePyJson does: values, null prototypes, Python literals, depth limit, errors', () => {
    const texts = [
      '{"a": {"Max": "1.5", "MaxRelativeErr": "9.09%"}, "b": [1, 2.5, -0, 1e308], "__proto__": {"x": null}, "constructor": 1}',
      '["DefaultModel", "Module.fc.Linear.forward.0", "\\u00e9\\ud83d\\ude00"]',
      '{"k": NaN, "j": Infinity, "i": -Infinity}',
      '{"a": 1, "a": 2}',
    ];
    for (const text of texts) {
      const fast = parseJsonFast(text);
      expect(fast).toEqual(parsePyJson(text));
      expect(JSON.stringify(fast)).toBe(JSON.stringify(parsePyJson(text)));
    }
    const obj = parseJsonFast(texts[0]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(obj)).toBeNull();
    expect(Object.getPrototypeOf(obj.a)).toBeNull();
    expect(obj.toString).toBeUndefined();
    expect(Object.keys(obj)).toContain('__proto__');
    const deep = '['.repeat(50) + ']'.repeat(50);
    expect(() => parseJsonFast(deep, { maxDepth: 10 })).toThrow(/nesting too deep/);
    expect(() => parseJsonFast('{"a": }')).toThrow(PyJsonError);
  });
});
