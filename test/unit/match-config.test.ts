import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileProblem } from '../../src/core/fileProblem.js';
import {
  MAX_VIS_CONFIG_CHARS,
  parseVisConfig,
  serializeVisConfig,
  visConfigName,
  VisConfigError,
} from '../../src/core/match/index.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * `.vis.config` files (reference-viewer.md §2.1, §4.4): the original's names, its bytes (Python
 * `json.dump(…, ensure_ascii=False, indent=4)`, texts made by make_goldens.py), and one-line errors naming the file.
 */

const { samples } = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/match/vis-config.json'), 'utf8')) as {
  samples: Array<{ pairs: [string, string][]; text: string }>;
};

describe('serializeVisConfig', () => {
  it('writes what Python json.dump(indent=4, ensure_ascii=False) writes', () => {
    expect(samples.length).toBe(3);
    for (const s of samples) expect(serializeVisConfig(s.pairs)).toBe(s.text);
  });

  it('the repo sample of the original viewer', () => {
    expect(serializeVisConfig([['Module.fc.Linear.forward.0', 'Module.fc.Linear.forward.0']])).toBe(
      '{\n    "Module.fc.Linear.forward.0": "Module.fc.Linear.forward.0"\n}',
    );
  });

  it('keeps a repeated NPU id once, in its first place with its last value (a Python dict)', () => {
    expect(serializeVisConfig([['a', '1'], ['b', '2'], ['a', '3']])).toBe('{\n    "a": "3",\n    "b": "2"\n}');
  });

  it('reads back what it writes', () => {
    for (const s of samples) expect(parseVisConfig(serializeVisConfig(s.pairs), 'x.vis.config')).toEqual(s.pairs);
  });
});

describe('parseVisConfig', () => {
  it('reads pairs in file order, integer-like names included', () => {
    expect(parseVisConfig('{"b": "x", "10": "y", "2": "z"}', 'a.vis.config')).toEqual([
      ['b', 'x'],
      ['10', 'y'],
      ['2', 'z'],
    ]);
    expect(parseVisConfig('{"a": "1", "a": "2", "b": "3"}', 'a.vis.config')).toEqual([
      ['a', '2'],
      ['b', '3'],
    ]);
    expect(parseVisConfig('{}', 'a.vis.config')).toEqual([]);
    // a byte-order mark from a Windows editor is tolerated (Python's json.load would refuse it)
    expect(parseVisConfig('\uFEFF{"a": "b"}', 'a.vis.config')).toEqual([['a', 'b']]);
  });

  const bad: Array<[string, string, string]> = [
    ['{"a": "b"', 'badJson', 'not valid JSON (line 1'],
    ['["a", "b"]', 'notObject', 'expected a JSON object'],
    ['"a"', 'notObject', 'expected a JSON object'],
    ['{"a": 1}', 'notString', 'the value of "a" is not a node name'],
    ['{"a": null}', 'notString', 'the value of "a"'],
    ['{"a": {"b": "c"}}', 'notString', 'the value of "a"'],
    ['{"a": ""}', 'emptyName', 'an empty node name'],
    ['{"": "b"}', 'emptyName', 'an empty node name'],
    ['{"__proto__": "b"}', 'reservedName', '"__proto__" is not a node name'],
    ['{"constructor": "b"}', 'reservedName', '"constructor"'],
  ];
  for (const [text, code, message] of bad) {
    it(`refuses ${JSON.stringify(text)} with one line naming the file`, () => {
      let err: unknown;
      try {
        parseVisConfig(text, 'run1/compare.vis.config');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(VisConfigError);
      expect(err).toBeInstanceOf(FileProblem);
      const e = err as VisConfigError;
      expect(e.code).toBe(code);
      expect(e.message.startsWith('run1/compare.vis.config: ')).toBe(true);
      expect(e.message).toContain(message);
      expect(e.message).not.toContain('\n');
    });
  }

  it('refuses a text over the size cap before parsing it', () => {
    const big = '{"a": "' + 'x'.repeat(MAX_VIS_CONFIG_CHARS) + '"}';
    expect(() => parseVisConfig(big, 'big.vis.config')).toThrow(/^big\.vis\.config: a match config holds at most 64 MiB/);
  });

  it('does not reach Object.prototype', () => {
    expect(() => parseVisConfig('{"__proto__": "polluted"}', 'p.vis.config')).toThrow(VisConfigError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('visConfigName', () => {
  it('names the files as the original viewer does', () => {
    expect(visConfigName('compare_20250101')).toBe('compare_20250101.vis.config');
    expect(visConfigName('compare_20250101', 0, 3)).toBe('compare_20250101_0_3.vis.config');
    expect(visConfigName('compare_20250101', 2)).toBe('compare_20250101.vis.config');
  });
});
