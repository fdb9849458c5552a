import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { buildGraph } from '../../src/core/build/buildGraph.js';
import { ByteArena } from '../../src/core/compareTable/byteArena.js';
import { StackTable } from '../../src/core/compareTable/stackTable.js';
import { parseConstructJson } from '../../src/core/formats/constructJson.js';
import { parseDumpJson } from '../../src/core/formats/dumpJson.js';
import { pyJsonDumps } from '../../src/core/formats/pyJsonWrite.js';
import { parseStackJson } from '../../src/core/formats/stackJson.js';
import { forEachGraphRow, type DbNodeRow } from '../../src/core/formats/visDb.js';

// Issue 19: memory that does not grow with stack.json's text. Frames are interned when stack.json is read, and the
// `.vis.db` stack rows are told apart without holding their texts.

const tmp = mkdtempSync(path.join(tmpdir(), 'stack-intern-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Heap kept by what `make` returns (after full collections), in MB. */
function retainedMb(make: () => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(kept).toBeTruthy();
  return (after - before) / 2 ** 20;
}

/** 4,000 distinct stacks of 24 frames: 23 from a pool of 200 shared ones, one of the stack's own (~15 MB of text). */
function distinctStacks(): Map<string, string[]> {
  const pool = Array.from({ length: 200 }, (_, i) => `File /site-packages/megatron/core/transformer/module_${i % 17}.py, line ${40 + i}, in forward, \n hidden_states, context = self.layer_${i}(hidden_states=hidden_states, attention_mask=attention_mask)`);
  const stacks = new Map<string, string[]>();
  for (let s = 0; s < 4000; s++) {
    const frames = [`File /site-packages/megatron/core/transformer/transformer_block.py, line ${200 + s}, in forward, \n hidden_states = self.layers[${s}](hidden_states)`];
    for (let k = 0; k < 23; k++) frames.push(pool[(s * 7 + k * 13) % 200]);
    stacks.set(`Functional.linear.${s}.forward`, frames);
  }
  return stacks;
}

describe('stack.json frames are interned', () => {
  const stacks = distinctStacks();
  const old = Buffer.from(JSON.stringify(Object.fromEntries(stacks), null, 1));
  const grouped = Buffer.from(JSON.stringify(Object.fromEntries([...stacks].map(([name, frames], i) => [String(i), [[name], frames]])), null, 1));

  it.each([
    ['the old shape from bytes', () => parseStackJson(old)],
    ['the grouped shape from bytes', () => parseStackJson(grouped)],
    ['the old shape from text (general reader)', () => parseStackJson(`${old.toString()} `.replace('{', '{"0": [], '))],
  ])('%s keeps a fraction of the text', (_, read) => {
    expect(old.length).toBeGreaterThan(14e6);
    let parsed: Map<string, string[]> | undefined;
    const mb = retainedMb(() => (parsed = read()));
    // The text is 15 MB; interned, the stacks are references to 4,200 distinct frames.
    expect(mb).toBeLessThan(4);
    expect(parsed!.get('Functional.linear.3999.forward')).toEqual(stacks.get('Functional.linear.3999.forward'));
    expect(parsed!.size).toBe(stacks.size + (parsed!.has('0') ? 1 : 0));
  });

  it('shares one array between equal old-shape values and reads repeated names in groups as msprobe does', () => {
    const s = parseStackJson(Buffer.from(`{"a": ["f1", "f2"], "b": ["f1", "f2"], "c": ["f2"]}`));
    expect(s.get('a')).toBe(s.get('b'));
    expect(s.get('c')).toEqual(['f2']);
    // A raw control character in a group's key: rejected as Python's json does (the general reader says where).
    expect(() => parseStackJson(Buffer.from(`{"0": [["a"], ["f1"]], "1\u0001": [["b"], ["f2"]]}`))).toThrow(/stack\.json/);
    const g = parseStackJson(Buffer.from(`{"0": [["a", "b"], ["f1"]], "1": [["a"], ["f2", "f1"]]}`));
    expect([...g]).toEqual([
      ['a', ['f2', 'f1']],
      ['b', ['f1']],
    ]);
  });
});

describe('the compare command’s stack column', () => {
  it('keeps each distinct stack’s text flat and its lines interned', () => {
    const stacks = distinctStacks();
    const keys = new ByteArena();
    for (const name of stacks.keys()) keys.push(name);
    let textChars = 0;
    let table: StackTable | undefined;
    const mb = retainedMb(() => {
      table = new StackTable(keys, 'stack.json');
      for (const [name, frames] of stacks) {
        const json = JSON.stringify(frames);
        table.addJson(name, json, () => JSON.parse(json) as string[]);
      }
      return table;
    });
    for (let i = 0; i < keys.length; i++) textChars += table!.text(i)!.length;
    // str(list) as msprobe prints it.
    expect(table!.text(0)).toBe(`[${stacks.get('Functional.linear.0.forward')!.map((l) => `'${l.replace('\n', '\\n')}'`).join(', ')}]`);
    expect(textChars / 2 ** 20).toBeGreaterThan(14);
    // The texts themselves (~15 MB) and at most 4 MB of raw JSON kept for repeated values: no chains of pieces
    // (32 bytes a piece) nor a second copy of every line.
    expect(mb).toBeLessThan(textChars / 2 ** 20 + 10);
  });
});

describe('.vis.db stack rows', () => {
  it('share one row per equal stack, whichever arrays hold it, texts made in first-seen order', () => {
    const construct = {
      'Module.m.M.forward.0': null,
      'Tensor.add.0.forward': 'Module.m.M.forward.0',
      'Tensor.add.1.forward': 'Module.m.M.forward.0',
      'Tensor.mul.0.forward': 'Module.m.M.forward.0',
    };
    // Grouped: equal stacks of two groups are two arrays.
    const stack = { '0': [['Tensor.add.0.forward'], ['f "1"', 'f2']], '1': [['Tensor.add.1.forward'], ['f "1"', 'f2']], '2': [['Tensor.mul.0.forward'], ['f2']] };
    const { graph } = buildGraph(
      {
        construct: parseConstructJson(JSON.stringify(construct)),
        dump: parseDumpJson(JSON.stringify({ task: 'statistics', data: {} })),
        stack: parseStackJson(JSON.stringify(stack)),
        dumpDir: '/dump',
      },
      { era: 'db' },
    );
    expect(graph.nodeMap.get('Tensor.add.0.forward')!.stackInfo).not.toBe(graph.nodeMap.get('Tensor.add.1.forward')!.stackInfo);
    const nodes: DbNodeRow[] = [];
    const rows = forEachGraphRow(graph, { source: 'NPU', step: 0, rank: 0, md5Mode: false }, (r) => nodes.push(r));
    const stackOf = (id: string) => nodes.find((r) => r[3] === id)![11];
    expect(stackOf('Tensor.add.0.forward')).toBe(stackOf('Tensor.add.1.forward'));
    expect(stackOf('Tensor.mul.0.forward')).not.toBe(stackOf('Tensor.add.0.forward'));
    expect(stackOf('Module.m.M.forward.0')).toBe(stackOf('DefaultModel'));
    // Post-order: the first three nodes are add.0, add.1, mul.0.
    expect(rows).toEqual([
      ['NPU_0_0_0', pyJsonDumps(['f "1"', 'f2'])],
      ['NPU_0_0_1', '["f2"]'],
      ['NPU_0_0_2', '[]'],
    ]);
  });
});

describe('dumpgen distinct stacks', () => {
  it('writes one distinct stack per forward entry, the collector’s frames first, in both shapes', () => {
    const out = path.join(tmp, 'gen');
    generateDumps({ out, layers: 3, seed: 7, distinctStacks: true });
    const oldText = readFileSync(path.join(out, 'npu/stack.json'), 'utf8');
    const old = JSON.parse(oldText) as Record<string, string[]>;
    const stacks = Object.values(old);
    expect(new Set(stacks.map((s) => s.join('\n'))).size).toBe(stacks.length);
    const depths = stacks.map((s) => s.length);
    expect(Math.min(...depths)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...depths)).toBeLessThanOrEqual(40);
    expect(Math.max(...depths)).toBeGreaterThan(25);
    expect(old['Functional.linear.0.forward'][0]).toMatch(/^File .+\/api_registry\.py, line \d+, in api_function, \n return api_instance\(/);
    expect(old['Module.module.module.decoder.layers.1.TransformerLayer.forward.0'][0]).toMatch(/in _call_impl, \n hook_result = hook\(/);
    for (const s of stacks) for (const frame of s) expect(frame).toMatch(/^File \S+, line \d+, in \S+, \n \S/);
    // Frames repeat across stacks: what interning saves.
    expect(new Set(stacks.flat()).size).toBeLessThan(stacks.flat().length / 10);
    generateDumps({ out: path.join(tmp, 'gen-grouped'), layers: 3, seed: 7, distinctStacks: true, stackFormat: 'grouped' });
    const grouped = parseStackJson(readFileSync(path.join(tmp, 'gen-grouped/npu/stack.json')));
    expect(Object.fromEntries(grouped)).toEqual(old);
  });
});
