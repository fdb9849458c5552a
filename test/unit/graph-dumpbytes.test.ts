import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { nodeInputOutput, splitInputOutput, type NodeData } from '../../src/core/formats/dumpItems.js';
import { readDumpItems, type DumpItemsVisitor } from '../../src/core/formats/dumpItemsFromBytes.js';
import { parseDumpJson } from '../../src/core/formats/dumpJson.js';
import type { PyValue } from '../../src/core/formats/pyJson.js';
import type { RawItem } from '../../src/core/model/item.js';
import { canon } from '../helpers/pyCanon.js';
import { sharedDataDir } from '../helpers/shared.js';
import { seededRandom } from '../helpers/seededRandom.js';

// dump.json read straight into items (dumpItemsFromBytes.ts) must give, entry by entry, the items dumpItems.ts makes
// from the hand parser's tree: same keys in the same order, same values with Python types (int vs float, NaN, -0).
// Files it does not take it must leave whole (null), and entries it does not flatten it must hand over as values.

const tmp = mkdtempSync(path.join(tmpdir(), 'graph-dumpbytes-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function canonItems(items: Map<string, RawItem>): string[] {
  return [...items].map(([k, item]) => `${k} => ${[...item].map(([f, v]) => `${f}=${canon(v)}`).join(' ')}`);
}

function canonData(d: NodeData): { input: string[]; output: string[] } {
  return { input: canonItems(d.inputData), output: canonItems(d.outputData) };
}

/** What the direct reader hands over, entry by entry, and how (items or value). */
class Recorder implements DumpItemsVisitor {
  readonly data = new Map<string, NodeData>();
  readonly asValue: string[] = [];
  constructor(private readonly wants: (name: string) => boolean = () => false) {}
  seen(name: string): boolean {
    return this.data.has(name);
  }
  wantsValue(name: string): boolean {
    return this.wants(name);
  }
  readonly errors = new Map<string, string>();
  entry(name: string, value: PyValue): void {
    this.asValue.push(name);
    try {
      this.data.set(name, nodeInputOutput(value, name));
    } catch (e) {
      // PreparedEntries keeps such a problem for when the build takes the entry.
      this.errors.set(name, String(e));
      this.data.set(name, { inputData: new Map(), outputData: new Map() });
    }
  }
  items(name: string, items: RawItem[]): void {
    this.data.set(name, splitInputOutput(items));
  }
}

const utf8 = (bytes: Uint8Array, start: number, end: number) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', start, end);

/**
 * Reads `text` both ways; returns the recorder (null when the direct reader declined the file). The bytes are a
 * view with an offset into a larger buffer, as the graph command's read buffer is.
 */
function readBoth(text: string, wants?: (name: string) => boolean): Recorder | null {
  const bytes = Buffer.concat([Buffer.from('pad'), Buffer.from(text, 'utf8'), Buffer.from('slack')]).subarray(3, 3 + Buffer.byteLength(text));
  const rec = new Recorder(wants);
  const head = readDumpItems(bytes, rec, utf8);
  if (!head) return null;
  const ref = parseDumpJson(text);
  expect([...rec.data.keys()]).toEqual([...ref.data.keys()]);
  for (const [name, entry] of ref.data) {
    expect(canonData(rec.data.get(name)!), name).toEqual(canonData(nodeInputOutput(entry, name)));
  }
  expect(canon(head.top)).toBe(canon(new Map([...ref.top].map(([k, v]) => [k, k === 'data' ? null : v]))));
  expect(head.data).toBe('entries');
  return rec;
}

const T = (max = '1.0', extra = '') =>
  `{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 3], "Max": ${max}, "Min": -0.5, "Mean": 0.25, "Norm": 3.0, "requires_grad": true${extra}}`;
const doc = (data: string, head = `"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": null`) => `{${head}, "data": {${data}}}`;

describe('dump.json read straight into items', () => {
  it.each([
    ['tensors in, out and kwargs', doc(`"A.0.forward": {"input_args": [${T()}, ${T('2.5')}], "input_kwargs": {"x": ${T()}, "y": null}, "output": [${T('NaN')}]}`)],
    ['None arguments and nested lists', doc(`"A.0.forward": {"input_args": [null, [${T()}, [null, ${T()}]], 3, "s"], "output": [[${T()}]]}`)],
    ['non-tensor values (int, float, bool, str, None, list, slice, ellipsis, torch.Size)', doc(
      `"A.0.forward": {"input_args": [{"type": "int", "value": 3}, {"type": "float", "value": 2.5}, {"type": "bool", "value": true}, ` +
        `{"type": "str", "value": "abc"}, {"type": "NoneType", "value": null}, {"type": "slice", "value": [1, null, 2]}, ` +
        `{"type": "ellipsis", "value": "..."}, {"type": "torch.Size", "value": [2, 3]}, {"type": "int", "value": 7, "md5": "abc"}], "output": []}`,
    )],
    ['rank arguments and process groups', doc(
      `"Distributed.all_reduce.0.forward": {"input_args": [${T()}], "input_kwargs": {"group": {"type": "torch.ProcessGroup", "group_ranks": [0, 1], "group_id": "g"}, "src": {"type": "int", "value": 0}}, "output": []}`,
    )],
    ['numbers as Python reads them', doc(
      `"A.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "x", "shape": [1, 0, 12345678901234567], "Max": 1e3, "Min": -0.0, "Mean": 0.1, "Norm": 1.7976931348623157e308, ` +
        `"requires_grad": false, "v": [1, -0, 0.30000000000000004, 5e-324, 1e400, -1E-400, 123456789.123456789, 2.5E+20, 9007199254740993.0, 1e22, 1e23, 0.000001234, -Infinity, Infinity, NaN, 12345678901234567890]}]}`,
    )],
    ['integer-like, escaped and non-ASCII keys and values', doc(
      `"线性.0.forward": {"input_args": [{"type": "str", "value": "中文 ✓ \\u00e9\\n\\"q\\"", "1": 2, "0": 1, "k\\u0030": "x", "é": "ü"}], "output": []}, "B\\u00e9.0.forward": {"output": [${T()}]}`,
    )],
    ['fields in another order, other keys, repeated short strings', doc(
      `"A.0.forward": {"is_recompute": false, "output": [${T()}], "parameters": {"weight": ${T()}}, "input_args": [${T()}], "input": [${T()}]}, ` +
        `"B.0.backward": {"input": [${T()}], "output": [${T()}]}`,
    )],
    ['parameter gradients, old and new names', doc(
      `"Module.l.Linear.parameters_grad": {"weight": [${T()}], "bias": [${T()}]}, "Module.l.Linear.parameters_grad.1": {"weight": [${T()}]}, ` +
        `"Module.parameters_grad.x.forward.0": {"input_args": [${T()}]}`,
    )],
    ['dicts that are not descriptors (kwargs of kwargs, a non-string type)', doc(
      `"A.0.forward": {"input_kwargs": {"cfg": {"a": ${T()}, "b": {"c": ${T()}, "type": 5}}, "e": {}}, "output": {"o": [${T()}]}}`,
    )],
    ['entries that are not dicts, empty ones', doc(`"a": 1, "b": null, "c": [1, 2], "d": "s", "e": {}, "f": {"input_args": []}`)],
    ['compact and indented layouts', `{"task":"statistics","data":{"A.0.forward":{"input_args":[${T()}],"output":[null]}}}`],
    ['indented', JSON.stringify(JSON.parse(doc(`"A.0.forward": {"input_args": [${T()}]}`)), null, 1).replace(/"Norm": 3/g, '"Norm": 3.0')],
    ['whitespace of all four kinds', `{"task":\t"t",\r\n"data": {"A.0.forward":\t{"output": [\r${T()}\n]}}}`],
    ['top-level values kept as the hand parser reads them', `{"task": "statistics", "x": [NaN, 1, 2.0, {"a": null}], "dump_data_dir": "路径", "data": {}}`],
  ])('%s', (_, text) => {
    const rec = readBoth(text);
    expect(rec).not.toBeNull();
  });

  it('hands over as values the entries it does not flatten (P2P ops, repeated keys, deep nesting) and those asked for', () => {
    const p2p = `{"class_type": "torch.distributed.P2POp", "op": "isend", "peer": 1, "tag": 0, "tensor": ${T()}}`;
    let deep = T();
    for (let k = 0; k < 405; k++) deep = `[${deep}]`;
    const text = doc(
      `"P.0.forward": {"input_args": [${p2p}]}, "R.0.forward": {"input_args": [${T('1.0', ', "Max": 2.0')}]}, ` +
        `"F.0.forward": {"output": [${T()}], "output": [null]}, "D.0.forward": {"input_args": ${deep}}, "batch_isend_irecv.0.forward": {"input_args": [${T()}]}, ` +
        `"N.0.forward": {"input_args": [${T()}]}`,
    );
    const bytes = Buffer.from(text);
    const rec = new Recorder((name) => name.includes('batch_isend_irecv'));
    expect(readDumpItems(bytes, rec, utf8)).not.toBeNull();
    expect(rec.asValue).toEqual(['P.0.forward', 'R.0.forward', 'F.0.forward', 'D.0.forward', 'batch_isend_irecv.0.forward']);
    // D: over msprobe's recursion limit, which dumpItems.ts reports (when the build takes the entry).
    expect([...rec.errors.keys()]).toEqual(['D.0.forward']);
    expect(rec.errors.get('D.0.forward')).toMatch(/recursion limit/);
    const ref = parseDumpJson(text);
    for (const name of ['P.0.forward', 'R.0.forward', 'F.0.forward', 'N.0.forward']) {
      expect(canonData(rec.data.get(name)!), name).toEqual(canonData(nodeInputOutput(ref.data.get(name), name)));
    }
    expect(() => nodeInputOutput(ref.data.get('D.0.forward'), 'D.0.forward')).toThrow(/recursion limit/);
  });

  it.each([
    ['a repeated entry name', doc(`"a": {"v": 1}, "b": {"v": 2}, "a": {"v": 3.0}`)],
    ['data repeated', `{"task": "t", "data": {"a": {"v": 1}}, "data": {"b": {"v": 2}}}`],
    ['data not a dict', `{"task": "t", "data": [1, 2]}`],
    ['no data', `{"task": "t", "level": "x"}`],
    ['an empty file object', `{}`],
    ['top is a list', `[1, 2]`],
    ['BOM', `\ufeff{"task": "t", "data": {}}`],
    ['truncated', `{"task": "t", "data": {"a": {"v": 1}`],
    ['truncated inside a string', `{"task": "t", "data": {"a": {"v": "ab`],
    ['truncated after a backslash', `{"task": "t", "data": {"a": {"v": "ab\\`],
    ['missing comma', doc(`"a": {"v": 1} "b": {"v": 2}`)],
    ['trailing comma', doc(`"a": {"v": 1},`)],
    ['trailing text', `{"task": "t", "data": {}} x`],
    ['leading zero', doc(`"a": {"input_args": [{"type": "int", "value": 01}]}`)],
    ['a fraction without digits', doc(`"a": {"input_args": [{"type": "float", "value": 1.}]}`)],
    ['an exponent without digits', doc(`"a": {"input_args": [{"type": "float", "value": 1e}]}`)],
    ['lone minus', doc(`"a": {"v": -}`)],
    ['-NaN', doc(`"a": {"v": -NaN}`)],
    ['a control character in a string', doc(`"a": {"v": "a\tb"}`)],
    ['a bad escape', doc(`"a": {"v": "a\\xb"}`)],
    ['a bad literal', doc(`"a": {"v": tru}`)],
    ['mismatched brackets', doc(`"a": {"v": [1}`)],
    ['NUL padding', `{"task": "t", "data": {}}\u0000`],
    ['a form feed', `{"task": "t", "data": {},\f"x": 1}`],
  ])('leaves %s to the general reader', (_, text) => {
    expect(readDumpItems(Buffer.from(text), new Recorder(), utf8)).toBeNull();
  });

  it('gives equal tensor shapes one list (both files), other lists their own', () => {
    const text = doc(`"A.0.forward": {"input_args": [${T()}, ${T()}, {"type": "list", "value": [2, 3]}], "output": [{"type": "torch.Tensor", "dtype": "torch.float16", "shape": [2, 4]}]}`);
    const read = () => {
      const rec = new Recorder();
      expect(readDumpItems(Buffer.from(text), rec, utf8)).not.toBeNull();
      return rec.data.get('A.0.forward')!;
    };
    const a = read();
    const b = read();
    const [x, y, list] = [...a.inputData.values()];
    expect(x.get('shape')).toEqual([2n, 3n]);
    expect(x.get('shape')).toBe(y.get('shape'));
    expect(x.get('shape')).toBe([...b.inputData.values()][0].get('shape'));
    expect(list.get('value')).toEqual([2n, 3n]);
    expect(list.get('value')).not.toBe(x.get('shape'));
    expect([...a.outputData.values()][0].get('shape')).toEqual([2n, 4n]);
  });

  it('reads floats of every length and exponent to the same double as the hand parser', () => {
    // A fixed pseudo-random sequence: 15-, 16- and 17-digit mantissas (exact fast path, its edge, the text path),
    // short decimals, exponents around ±22 and the subnormal / overflow ranges.
    const rand = seededRandom(12345);
    const numbers: string[] = [];
    for (let k = 0; k < 4000; k++) {
      const digits = 1 + Math.floor(rand() * 19);
      let m = String(1 + Math.floor(rand() * 9));
      for (let d = 1; d < digits; d++) m += Math.floor(rand() * 10);
      const dot = Math.floor(rand() * (digits + 1));
      const body = dot === digits ? `${m}.0` : `${m.slice(0, dot) || '0'}.${m.slice(dot)}`;
      const exp = rand() < 0.5 ? '' : `e${Math.floor(rand() * 80) - 40}`;
      numbers.push(`${rand() < 0.3 ? '-' : ''}${body}${exp}`);
      numbers.push(String(rand() * 10 ** (Math.floor(rand() * 60) - 30)));
    }
    numbers.push('2.2250738585072014e-308', '4.9e-324', '1.7976931348623157e308', '1.7976931348623159e308', '9007199254740993.0', '0.1e1', '100e-2');
    const text = doc(`"A.0.forward": {"input_args": [{"type": "list", "value": [${numbers.join(', ')}]}]}`);
    expect(readBoth(text)).not.toBeNull();
  });

  it('reads deeply nested values or leaves them, never overflowing', () => {
    const text = doc(`"a": {"v": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(readDumpItems(Buffer.from(text), new Recorder(), utf8)).toBeNull();
  });

  it('takes every generated dump and every well-formed shared dump, with the reference items', () => {
    const dirs: string[] = [];
    for (const [i, c] of [
      { layers: 2, overflow: true, seed: 41 },
      { layers: 2, md5: true, seed: 42, stackFormat: 'grouped' as const },
      { layers: 1, fused: true, seed: 43, microSteps: 2 },
    ].entries()) {
      const out = path.join(tmp, `gen${i}`);
      generateDumps({ ...c, out, bench: false, log: () => {} });
      dirs.push(path.join(out, 'npu'));
    }
    const data = sharedDataDir();
    if (data) dirs.push(...dumpFilesUnder(data));
    let taken = 0;
    let entries = 0;
    for (const dir of dirs) {
      const text = readFileSync(path.join(dir, 'dump.json'), 'utf8');
      let parsed = true;
      try {
        parseDumpJson(text);
      } catch {
        parsed = false;
      }
      const rec = readBoth(text);
      if (rec) {
        taken++;
        entries += rec.data.size - rec.asValue.length;
      } else expect(parsed && !/"data"\s*:\s*\{/.test(text) ? 'no data dict' : parsed ? dir : 'malformed').not.toBe(dir);
    }
    expect(taken).toBeGreaterThanOrEqual(data ? 20 : 3);
    expect(entries).toBeGreaterThan(1000);
  });
});

function dumpFilesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (existsSync(path.join(dir, 'dump.json'))) out.push(dir);
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory() && name !== 'dump_tensor_data') walk(p);
    }
  };
  walk(root);
  return out.sort();
}
