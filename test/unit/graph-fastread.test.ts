import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { parseConstructJson, scanConstruct } from '../../src/core/formats/constructJson.js';
import { parseDumpJson, readDumpJson, visitDumpJson } from '../../src/core/formats/dumpJson.js';
import { PyJsonError, parsePyJson, type PyValue } from '../../src/core/formats/pyJson.js';
import { parsePyJsonNative, type DumpValue } from '../../src/core/formats/pyJsonNative.js';
import { parseStackJson } from '../../src/core/formats/stackJson.js';
import { canon } from '../helpers/pyCanon.js';

// The fast readers (native JSON.parse + pre-scan, batches of dump entries, the stack.json scan) must give exactly
// what the Python-mode hand parser gives: same values with Python types (int vs float, NaN), same key order, same
// errors. Every case is read both ways and compared.

const tmp = mkdtempSync(path.join(tmpdir(), 'graph-fastread-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function errorOf(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof PyJsonError ? `${e.line}:${e.column}:${e.problem}` : String(e);
  }
}

/**
 * readDumpJson (fast) and parseDumpJson (hand parser) agree on `text`: values, order, or the error. The fast
 * reader is given the text and, as the graph command gives it, the UTF-8 bytes (a view into a larger buffer).
 */
function expectSameDump(text: string): void {
  const slow = errorOf(() => parseDumpJson(text, 'dump.json'));
  const bytes = Buffer.concat([Buffer.from('pad'), Buffer.from(text, 'utf8')]).subarray(3);
  for (const src of [text, bytes]) expect(errorOf(() => readDumpJson(src, 'dump.json'))).toBe(slow);
  if (slow !== null) return;
  const a = parseDumpJson(text, 'dump.json');
  const b = readDumpJson(text, 'dump.json');
  expect(canon(readDumpJson(bytes, 'dump.json').top as DumpValue)).toBe(canon(a.top));
  expect(canon(b.top as DumpValue)).toBe(canon(a.top));
  expect(canon(b.data as DumpValue)).toBe(canon(a.data));
  expect([b.task, b.level, b.framework, b.dumpDataDir].map((v) => canon(v))).toEqual([a.task, a.level, a.framework, a.dumpDataDir].map((v) => canon(v)));
  // visiting order is the data order
  const visited: string[] = [];
  visitDumpJson(text, 'dump.json', { entry: (name) => void visited.push(name) });
  expect(visited).toEqual([...a.data.keys()]);
}

const T = `{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 3], "Max": 1.0, "Min": -0.5, "Mean": 0.25, "Norm": 3, "requires_grad": true}`;

describe('dump.json read in batches with the native parser', () => {
  it.each([
    ['plain', `{"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {"A.0.forward": {"input_args": [${T}], "output": [${T}]}, "B.0.forward": {"output": [null]}}}`],
    ['int vs float', `{"task": "statistics", "data": {"x": {"a": [1, 1.0, 1e3, 1E+2, -0, -0.0, 0, 12345678901234567890, -9007199254740993, 2.5e-07]}}}`],
    ['NaN and Infinity in an entry', `{"task": "statistics", "data": {"a": {"output": [{"type": "torch.Tensor", "Max": NaN, "Min": -Infinity, "Mean": Infinity}]}, "b": {"v": [1, 2.0]}}}`],
    ['NaN at the top level', `{"task": "statistics", "x": NaN, "data": {"a": {"v": 1}}}`],
    ['integer-like keys inside an entry', `{"task": "t", "data": {"a": {"z": 1, "1": 2.0, "0": 3}, "b": {"k": 4}}}`],
    ['integer-like entry names', `{"task": "t", "data": {"5": {"v": 1}, "2": {"v": 2}, "x": {"v": 3.0}}}`],
    ['escaped keys', `{"task": "t", "data": {"a\\u0030": {"\\u0031": 1, "k\\"q": 2}, "b": {"v": 1}}}`],
    ['a key repeated inside an entry', `{"task": "t", "data": {"a": {"k": 1, "j": 2.0, "k": 3.0}, "b": {"v": 1}}}`],
    ['an entry name repeated', `{"task": "t", "data": {"a": {"v": 1}, "b": {"v": 2}, "a": {"v": 3.0}}}`],
    ['data repeated', `{"task": "t", "data": {"a": {"v": 1}}, "level": "x", "data": {"b": {"v": 2}}}`],
    ['data not a dict', `{"task": "t", "data": [1, 2]}`],
    ['data repeated, the last not a dict', `{"task": "t", "data": {"a": 1}, "data": 3}`],
    ['no data', `{"task": "t", "level": "x"}`],
    ['empty data', `{"task": "t", "data": {}}`],
    ['__proto__ everywhere', `{"__proto__": {"x": 1}, "task": "t", "data": {"__proto__": {"__proto__": 2, "constructor": 1.0}, "toString": {"v": 1}}}`],
    ['unicode and escapes in values', `{"task": "t", "data": {"名": {"s": "é\\n\\"\\\\\\u4e0e\\/", "t": "\\ud83d\\ude00"}}}`],
    ['compact', `{"task":"t","data":{"a":{"v":[1,2.0]},"b":{"v":{"w":null}}}}`],
    ['indented', JSON.stringify(JSON.parse(`{"task": "t", "data": {"a": {"v": [1, 2.5]}}}`), null, 1).replace('2.5', '2.0')],
    ['empty containers', `{"task": "t", "data": {"a": {}, "b": [], "c": {"d": {}, "e": []}}}`],
    ['scalar entries', `{"task": "t", "data": {"a": 1, "b": "s", "c": null, "d": true, "e": 1.5}}`],
    ['top is a list', `[1, 2]`],
    ['top is a string', `"x"`],
    ['BOM', `\ufeff{"task": "t", "data": {"a": {"v": 1}}}`],
    ['tabs and carriage returns', `{"task":\t"t",\r\n"data": {"a":\t{"v": [1,\r2.0]}}}`],
  ])('%s', (_, text) => expectSameDump(text));

  it.each([
    ['truncated', `{"task": "t", "data": {"a": {"v": 1}`],
    ['missing comma between entries', `{"task": "t", "data": {"a": {"v": 1} "b": {"v": 2}}}`],
    ['garbage between entries', `{"task": "t", "data": {"a": {"v": 1}, x "b": {"v": 2}}}`],
    ['garbage between top-level members', `{"task": "t" x, "data": {"a": 1}}`],
    ['bad literal inside an entry', `{"task": "t", "data": {"a": {"v": tru}}}`],
    ['control character in a string', `{"task": "t", "data": {"a": {"v": "a\tb"}}}`],
    ['bad escape', `{"task": "t", "data": {"a": {"v": "a\\xb"}}}`],
    ['trailing comma', `{"task": "t", "data": {"a": {"v": 1},}}`],
    ['trailing text', `{"task": "t", "data": {}} x`],
    ['two documents', `{"task": "t", "data": {}} {}`],
    ['leading zero', `{"task": "t", "data": {"a": {"v": 01}}}`],
    ['lone minus', `{"task": "t", "data": {"a": {"v": -}}}`],
    ['unclosed string', `{"task": "t", "data": {"a": {"v": "abc}}}`],
    ['mismatched brackets', `{"task": "t", "data": {"a": {"v": [1}}}`],
    ['colon instead of comma', `{"task": "t", "data": {"a": 1: 2}}`],
    ['NUL padding after the document', `{"task": "t", "data": {"a": {"v": 1}}}\u0000\u0000`],
    ['a form feed between entries', `{"task": "t", "data": {"a": {"v": 1},\f"b": {"v": 2}}}`],
    ['a control character inside an entry', `{"task": "t", "data": {"a": {"v":\u0001 1}}}`],
  ])('reports %s as the hand parser does', (_, text) => expectSameDump(text));

  it('reads generated dumps exactly (statistics, md5, overflow NaN/inf, fused kernels, grouped stacks)', () => {
    const cases = [
      { layers: 2, overflow: true, seed: 11 },
      { layers: 2, md5: true, seed: 12, stackFormat: 'grouped' as const },
      { layers: 1, fused: true, seed: 13, microSteps: 2 },
    ];
    for (const [i, c] of cases.entries()) {
      const out = path.join(tmp, `gen${i}`);
      generateDumps({ ...c, out, bench: false, log: () => {} });
      const dir = path.join(out, 'npu');
      expectSameDump(readFileSync(path.join(dir, 'dump.json'), 'utf8'));
      const stackText = readFileSync(path.join(dir, 'stack.json'), 'utf8');
      expect(canon(parseStackJson(stackText) as unknown as DumpValue)).toBe(canon(stackOracle(stackText) as unknown as DumpValue));
      const constructText = readFileSync(path.join(dir, 'construct.json'), 'utf8');
      expect(parseConstructJson(constructText)).toEqual(constructOracle(constructText));
    }
  });

  it('parsePyJsonNative gives the hand parser’s values or declines', () => {
    for (const text of [`{"a": [1, 2.0, NaN]}`, `{"1": 2, "0": 1}`, `{"a": 1, "a": 2}`, `[1, -Infinity]`, `{"a": "\\u0031"}`]) {
      const fast = parsePyJsonNative(text);
      if (fast) expect(canon(fast.value)).toBe(canon(parsePyJson(text, { mode: 'python' }) as PyValue));
    }
    expect(parsePyJsonNative(`{"1": 2, "0": 1}`)).toBeUndefined();
    expect(parsePyJsonNative(`{"a": 1, "a": 2}`)).toBeUndefined();
  });
});

/** construct.json through the hand parser only (no Megatron micro steps in these dumps). */
function constructOracle(text: string) {
  const top = parsePyJson(text, { mode: 'python' }) as Map<string, PyValue>;
  const parents = new Map<string, string | null>();
  for (const [k, v] of top) parents.set(k, typeof v === 'string' && v ? v : null);
  return { parents, microSteps: null, megatronMicroStepNumber: null };
}

describe('construct.json read from its bytes', () => {
  const fromBytes = (text: string) => parseConstructJson(Buffer.concat([Buffer.from('pad'), Buffer.from(text, 'utf8')]).subarray(3));
  it.each([
    ['plain', `{"Module.a.A.forward.0": null, "Tensor.add.0.forward": "Module.a.A.forward.0"}`],
    ['indented, CRLF and tabs', `{\r\n\t"a": null,\r\n\t"b": "a"\r\n}`],
    ['empty parent', `{"a": null, "b": ""}`],
    ['integer-like names keep their place', `{"z": null, "1": "z", "0": "1"}`],
    ['repeated name: first place, last value', `{"a": null, "b": "a", "a": "b"}`],
    ['escapes', `{"a\\u00e9": null, "b\\"q": "a\\u00e9", "c\\n": "b\\"q"}`],
    ['non-ASCII', `{"模块.前向.0": null, "Tensor.é.0": "模块.前向.0"}`],
    ['megatron', `{"megatron_micro_step_number": 1, "a": [null, 0], "b": ["a", 1]}`],
    ['a non-string parent', `{"a": null, "b": 3}`],
    ['empty', `{}`],
    ['top is a list', `[]`],
    ['truncated', `{"a": null, "b": "a"`],
    ['trailing text', `{"a": null} x`],
    ['NUL padding', `{"a": null}\u0000`],
    ['a control character in a name', `{"a\u0001": null}`],
    ['a bad escape', `{"a\\x": null}`],
    ['nul instead of null', `{"a": nul}`],
    ['BOM', `\ufeff{"a": null}`],
  ])('%s: as from its text', (_, text) => {
    const fromText = errorOf(() => parseConstructJson(text));
    expect(errorOf(() => fromBytes(text))).toBe(fromText);
    if (fromText === null) expect(fromBytes(text)).toEqual(parseConstructJson(text));
  });

  it('gives the hand parser’s parents for plain files, by the scan (the rest by the parsers)', () => {
    const text = `{"z": null, "1": "z", "a": "", "a\\u00e9": "1", "1": "a"}`;
    expect(fromBytes(text)).toEqual(constructOracle(text));
    const scanned = (t: string) => scanConstruct(new TextEncoder().encode(t)) !== null;
    expect(scanned(text)).toBe(true);
    expect(scanned(`{\r\n\t"模块": null,\r\n\t"b": "模块"\r\n}`)).toBe(true);
    for (const other of [`{}`, `{"megatron_micro_step_number": 1, "a": [null, 0]}`, `{"a": 3}`, `{"a": null} x`, `{"a\u0001": null}`]) {
      expect(scanned(other)).toBe(false);
    }
  });
});

describe('stack.json scan', () => {
  it.each([
    ['shared stacks', `{"a": ["l1", "l2"], "b": ["l1", "l2"], "c": ["x"]}`],
    ['escapes', `{"a\\u00e9": ["l\\n1", "q\\"", "\\\\"], "b": []}`],
    ['grouped format', `{"0": [["a", "b"], ["l1"]], "1": [["c"], ["l2", "l3"]]}`],
    ['non-list value', `{"a": "x", "b": ["l"]}`],
    ['repeated name', `{"a": ["1"], "b": ["2"], "a": ["3"]}`],
    ['empty', `{}`],
  ])('%s', (_, text) => {
    expect(canon(parseStackJson(text) as unknown as DumpValue)).toBe(canon(stackOracle(text) as unknown as DumpValue));
  });

  it.each([
    ['a raw control character in a key', `{"a": ["l"], "b\u0001c": ["l"]}`],
    ['a bad escape in a key', `{"a": ["l"], "b\\xc": ["l"]}`],
    ['a raw control character in a line', `{"a": ["l\u0001"]}`],
  ])('reports %s as the hand parser does (from text and from bytes)', (_, text) => {
    const slow = errorOf(() => stackOracle(text));
    expect(slow).not.toBeNull();
    expect(errorOf(() => parseStackJson(text))).toBe(slow);
    expect(errorOf(() => parseStackJson(Buffer.from(text)))).toBe(slow);
  });
});

/** What the stack reader returns, from the hand parser only (non-list values become []). */
function stackOracle(text: string): Map<string, string[]> {
  const top = parsePyJson(text, { mode: 'python' }) as Map<string, PyValue>;
  const out = new Map<string, string[]>();
  const first = top.get('0');
  if (first) {
    for (const group of top.values()) {
      if (!Array.isArray(group) || group.length !== 2 || !Array.isArray(group[0])) continue;
      const lines = Array.isArray(group[1]) ? (group[1] as PyValue[]).map(String) : [];
      for (const name of group[0] as PyValue[]) out.set(String(name), lines);
    }
  } else for (const [k, v] of top) out.set(k, Array.isArray(v) ? v.map(String) : []);
  return out;
}
