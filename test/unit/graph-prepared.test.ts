import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { dumpOverflowLevels } from '../../server/graph/overflowLevels.js';
import { readBytes, readDumpDir, readDumpDirForBuild, releaseFileBuffer } from '../../server/graph/readDumpDir.js';
import { parseDumpJson } from '../../src/core/formats/dumpJson.js';
import { toPy } from '../../src/core/formats/pyJsonNative.js';
import { buildGraph } from '../../src/core/build/buildGraph.js';
import { detectFramework, hasMd5 } from '../../src/core/compare/mode.js';
import { formatItems } from '../../src/core/formats/itemFormat.js';
import type { FormatEra } from '../../src/core/formats/formatEra.js';
import type { Graph } from '../../src/core/model/graph.js';
import { sharedDataDir } from '../helpers/shared.js';

// The graph command reads dump.json entry by entry into node data (readDumpDirForBuild); the whole-file reader
// (readDumpDir) is the reference. Both must give the same graphs, the same check inputs and the same errors, on every
// dump directory of the shared data and on generated ones.

const tmp = mkdtempSync(path.join(tmpdir(), 'graph-prepared-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function dumpDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (existsSync(path.join(dir, 'dump.json')) && existsSync(path.join(dir, 'construct.json'))) out.push(dir);
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory() && name !== 'dump_tensor_data') walk(p);
    }
  };
  walk(root);
  return out.sort();
}

/** Everything of a graph the writers read, as plain data. */
function graphView(graph: Graph, era: FormatEra) {
  return [...graph.nodeMap.values()].map((n) => ({
    id: n.id,
    op: n.op,
    up: n.upnode?.id ?? null,
    sub: n.subnodes.map((s) => s.id),
    stack: n.stackInfo,
    micro: n.microStepId,
    p2p: n.batchP2pInfo,
    input: [...formatItems(n.inputData, n.id, { era, md5Mode: true })].map(([k, v]) => [k, [...v]]),
    output: [...formatItems(n.outputData, n.id, { era, md5Mode: true })].map(([k, v]) => [k, [...v]]),
    rawIn: [...n.inputData].map(([k, item]) => [k, [...item].map(([f, v]) => [f, typeof v === 'bigint' ? `${v}n` : v])]),
  }));
}

function errorOf(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return String(e);
  }
}

function expectSameReads(dir: string): void {
  for (const era of ['db', 'vis202507'] as const) {
    const refError = errorOf(() => buildGraph(readDumpDir(dir), { era }));
    const fastError = errorOf(() => buildGraph(readDumpDirForBuild(dir), { era }));
    expect(fastError, dir).toBe(refError);
    if (refError) return;
    const ref = readDumpDir(dir, { keepDumpText: true });
    const fast = readDumpDirForBuild(dir, { overflowLevels: true });
    expect(fast.md5, dir).toBe(hasMd5(ref.dump.data));
    expect([...fast.levels!], dir).toEqual([...dumpOverflowLevels(ref.dump.data)]);
    expect(String(fast.framework), dir).toBe(errorOf(() => detectFramework(ref.dump.top, ref.dumpFile, ref.dumpText)) ?? detectFramework(ref.dump.top, ref.dumpFile, ref.dumpText));
    expect([...fast.head.top.keys()], dir).toEqual([...ref.dump.top.keys()]);
    expect(fast.dump.dumpDataDir, dir).toEqual(ref.dump.dumpDataDir);
    const a = buildGraph(ref, { era, step: 1, rank: 2 });
    const b = buildGraph(fast, { era, step: 1, rank: 2 });
    expect(b.warnings, dir).toEqual(a.warnings);
    expect(graphView(b.graph, era), dir).toEqual(graphView(a.graph, era));
  }
}

describe('reading dump directories entry by entry', () => {
  const data = sharedDataDir();
  it.runIf(data !== null)('gives the whole-file reader’s graphs on every shared dump', () => {
    const dirs = dumpDirs(data!);
    expect(dirs.length).toBeGreaterThan(20);
    for (const dir of dirs) expectSameReads(dir);
  });

  it('gives the whole-file reader’s graphs on generated dumps (overflow, md5, fused, grouped stacks)', () => {
    const cases = [
      { layers: 2, overflow: true, seed: 21 },
      { layers: 2, md5: true, seed: 22, stackFormat: 'grouped' as const },
      { layers: 1, fused: true, seed: 23, microSteps: 2, ranks: 2 },
    ];
    for (const [i, c] of cases.entries()) {
      const out = path.join(tmp, `gen${i}`);
      generateDumps({ ...c, out, bench: false, log: () => {} });
      for (const dir of dumpDirs(out)) expectSameReads(dir);
    }
  });
});

describe('dump.json read from its bytes', () => {
  it('decodes non-ASCII names, keys and values as the text reader does', () => {
    const dir = path.join(tmp, 'utf8');
    mkdirSync(dir, { recursive: true });
    const t = (max: string) => `{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": ${max}, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false}`;
    const dump =
      `{\n "task": "statistics",\n "level": "mix",\n "framework": "pytorch",\n "dump_data_dir": "路径/é",\n "data": {\n` +
      `  "Functional.线性.0.forward": {"input_args": [${t('1.0')}, {"type": "str", "value": "中文 ✓ \\u00e9"}], "output": [${t('NaN')}]},\n` +
      `  "Tensor.add\\u00e9.0.forward": {"input_args": [${t('2')}], "output": [${t('-Infinity')}]}\n }\n}`;
    writeFileSync(path.join(dir, 'dump.json'), dump);
    writeFileSync(path.join(dir, 'construct.json'), JSON.stringify({ 'Functional.线性.0.forward': null, 'Tensor.addé.0.forward': null }));
    writeFileSync(path.join(dir, 'stack.json'), JSON.stringify({ 'Functional.线性.0.forward': ['File 路径.py, line 1, in f, \n x'] }));
    expectSameReads(dir);
    const fast = readDumpDirForBuild(dir);
    const oracle = parseDumpJson(readFileSync(path.join(dir, 'dump.json'), 'utf8'));
    expect([...fast.head.top]).toEqual([...oracle.top].map(([k, v]) => [k, k === 'data' ? null : v]));
    const names: string[] = [];
    readDumpDir(dir).dump.data.forEach((entry, name) => {
      names.push(name);
      expect(toPy(entry)).toEqual(oracle.data.get(name));
    });
    expect(names).toEqual(['Functional.线性.0.forward', 'Tensor.addé.0.forward']);
  });

  it('rejects control characters outside strings (a truncated file padded with NULs)', () => {
    const dir = path.join(tmp, 'nul');
    generateDumps({ layers: 1, seed: 31, out: dir, bench: false, log: () => {} });
    const npu = dumpDirs(dir)[0];
    writeFileSync(path.join(npu, 'dump.json'), Buffer.concat([readFileSync(path.join(npu, 'dump.json')), Buffer.alloc(64)]));
    expect(errorOf(() => readDumpDirForBuild(npu))).toMatch(/dump\.json.*Extra data|dump\.json:\d+:\d+/);
    expectSameReads(npu);
  });

  it('gives the read buffer’s memory back when released (views of it read as empty)', () => {
    const file = path.join(tmp, 'bytes.bin');
    writeFileSync(file, Buffer.alloc(1 << 20, 7));
    const view = readBytes(file);
    expect(view.length).toBe(1 << 20);
    releaseFileBuffer();
    expect(view.length).toBe(0);
    expect(readBytes(file)[5]).toBe(7);
    releaseFileBuffer();
  });
});
