import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDumps, type DumpOptions } from '../../bench/dumpgen/generate.mjs';
import { pyFloatRepr } from '../../bench/dumpgen/pyJson.mjs';
import { parsePyJson, type PyValue } from '../../src/core/formats/pyJson.js';
import { repoRoot } from '../helpers/shared.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'dumpgen-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let runs = 0;
function generate(o: Omit<DumpOptions, 'out'>) {
  const out = path.join(tmp, `run${runs++}`);
  return { out, summary: generateDumps({ ...o, out }) };
}

type PyMap = Map<string, PyValue>;
const read = (file: string) => parsePyJson(readFileSync(file, 'utf8'), { mode: 'python', file }) as PyMap;

function readDumpDir(dir: string) {
  const dump = read(path.join(dir, 'dump.json'));
  return {
    dump,
    data: dump.get('data') as PyMap,
    construct: read(path.join(dir, 'construct.json')),
    stack: read(path.join(dir, 'stack.json')),
  };
}

/** Every tensor descriptor in a dump entry, with its flattened name. */
function* tensors(v: PyValue, name: string): Generator<[string, PyMap]> {
  if (v instanceof Map) {
    if (v.get('type') === 'torch.Tensor') yield [name, v];
    else for (const [k, x] of v) yield* tensors(x, `${name}.${k}`);
  } else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) yield* tensors(v[i], `${name}.${i}`);
}

describe('pyFloatRepr', () => {
  it('prints floats as Python repr does', () => {
    // Expected strings produced by CPython 3: json.dumps(x) for each x.
    const cases: Array<[number, string]> = [
      [1, '1.0'], [0.1, '0.1'], [1e-5, '1e-05'], [1e-4, '0.0001'], [1.5e16, '1.5e+16'], [1e16, '1e+16'],
      [1234567890123456, '1234567890123456.0'], [12345678901234567, '1.2345678901234568e+16'], [1e-7, '1e-07'],
      [5e-324, '5e-324'], [1.7976931348623157e308, '1.7976931348623157e+308'], [-2.5, '-2.5'], [-0, '-0.0'],
      [NaN, 'NaN'], [Infinity, 'Infinity'], [-Infinity, '-Infinity'], [5.600728203254716e-6, '5.600728203254716e-06'],
    ];
    for (const [x, s] of cases) expect(pyFloatRepr(x)).toBe(s);
  });
});

describe('dump generator: a 2-layer statistics compare', () => {
  const { out, summary } = generate({ layers: 2, bench: true, seed: 7 });
  const npu = readDumpDir(path.join(out, 'npu'));
  const bench = readDumpDir(path.join(out, 'bench'));

  it('writes msprobe top-level keys and a compare.json pointing at both sides', () => {
    expect([...npu.dump.keys()]).toEqual(['task', 'level', 'framework', 'dump_data_dir', 'data']);
    expect(npu.dump.get('task')).toBe('statistics');
    expect(npu.dump.get('dump_data_dir')).toBeNull();
    const compare = JSON.parse(readFileSync(summary.compareJson, 'utf8'));
    expect(compare).toEqual({ npu_path: path.join(out, 'npu'), bench_path: path.join(out, 'bench'), is_print_compare_log: true });
  });

  it('has a construct.json whose parents all exist, in call order', () => {
    const keys = [...npu.construct.keys()];
    expect(keys.length).toBeGreaterThan(300);
    keys.forEach((child, i) => {
      const parent = npu.construct.get(child);
      if (parent === null) return;
      expect(typeof parent).toBe('string');
      // A parent is called before its children: it appears earlier in the file.
      expect(keys.indexOf(parent as string)).toBeGreaterThanOrEqual(0);
      expect(keys.indexOf(parent as string)).toBeLessThan(i);
    });
    // dump.json holds the construct entries in the same order, then the parameter gradients.
    const dataKeys = [...npu.data.keys()];
    expect(dataKeys.slice(0, keys.length)).toEqual(keys);
    expect(dataKeys.slice(keys.length).every((k) => /\.parameters_grad\.0$/.test(k))).toBe(true);
  });

  it('names calls as msprobe does, with forward/backward twins', () => {
    const keys = [...npu.construct.keys()];
    for (const k of keys) {
      expect(k).toMatch(/^(Module\..+\.(forward|backward)\.\d+|(Tensor|Torch|Functional|Distributed)\.\w+\.\d+\.(forward|backward))$/);
      if (k.endsWith('.backward')) expect(npu.construct.has(k.replace(/backward$/, 'forward'))).toBe(true);
      const m = /^(Module\..+)\.backward\.(\d+)$/.exec(k);
      if (m) expect(npu.construct.has(`${m[1]}.forward.${m[2]}`)).toBe(true);
    }
    // Per-API global counters: Tensor.__mul__.0 … .N without gaps.
    const counters = new Map<string, number[]>();
    for (const k of keys) {
      const m = /^(\w+\.\w+)\.(\d+)\.forward$/.exec(k);
      if (m) counters.set(m[1], [...(counters.get(m[1]) ?? []), Number(m[2])]);
    }
    for (const [, ns] of counters) expect(ns).toEqual(ns.map((_, i) => i));
    expect(counters.get('Functional.linear')?.length).toBe(2 * 4 + 1);
    // Backward replays the forward in reverse.
    expect(keys.indexOf('Functional.linear.1.backward')).toBeLessThan(keys.indexOf('Functional.linear.0.backward'));
    expect(keys).toContain('Module.module.module.decoder.layers.1.self_attention.linear_qkv.ColumnParallelLinear.forward.0');
  });

  it('puts runs of APIs between top-level modules (Apis_Between_Modules)', () => {
    const roots = [...npu.construct].filter(([, p]) => p === null).map(([k]) => k);
    expect(roots.slice(0, 5)).toEqual([
      'Tensor.__getitem__.0.forward', 'Tensor.contiguous.0.forward', 'Tensor.long.0.forward', 'Tensor.__eq__.0.forward',
      'Module.module.Float16Module.forward.0',
    ]);
    expect(roots).toContain('Module.module.Float16Module.backward.0');
  });

  it('writes parameters on module forwards and parameters_grad for each of them', () => {
    const qkv = npu.data.get('Module.module.module.decoder.layers.0.self_attention.linear_qkv.ColumnParallelLinear.forward.0') as PyMap;
    expect([...qkv.keys()]).toEqual(['input_args', 'input_kwargs', 'output', 'parameters']);
    expect([...(qkv.get('parameters') as PyMap).keys()]).toEqual(['weight', 'bias']);
    const grad = npu.data.get('Module.module.module.decoder.layers.0.self_attention.linear_qkv.ColumnParallelLinear.parameters_grad.0') as PyMap;
    expect([...grad.keys()]).toEqual(['weight', 'bias']);
    expect(npu.construct.has('Module.module.module.decoder.layers.0.self_attention.linear_qkv.ColumnParallelLinear.backward.0')).toBe(true);
  });

  it('writes consistent statistics with Python number types', () => {
    let count = 0;
    for (const [name, entry] of npu.data) {
      for (const [, t] of tensors(entry, name)) {
        count++;
        const shape = t.get('shape') as PyValue[];
        expect(shape.every((d) => typeof d === 'bigint')).toBe(true);
        if (t.get('dtype') === 'torch.bool') continue;
        const [max, min, mean, norm] = ['Max', 'Min', 'Mean', 'Norm'].map((s) => t.get(s) as number);
        expect(typeof max).toBe('number');
        expect(max).toBeGreaterThanOrEqual(mean);
        expect(mean).toBeGreaterThanOrEqual(min);
        expect(norm).toBeGreaterThanOrEqual(0);
      }
    }
    expect(count).toBeGreaterThan(500);
    const cat = npu.data.get('Torch.cat.0.forward') as PyMap;
    const dim = (cat.get('input_kwargs') as PyMap).get('dim') as PyMap;
    expect(dim.get('value')).toBe(-1n);
  });

  it('has a bench side with the same structure and different numbers', () => {
    expect([...bench.construct]).toEqual([...npu.construct]);
    expect([...bench.data.keys()]).toEqual([...npu.data.keys()]);
    let same = 0;
    let differ = 0;
    for (const [name, entry] of npu.data) {
      const other = [...tensors(bench.data.get(name) as PyValue, name)];
      [...tensors(entry, name)].forEach(([, t], i) => {
        if (t.get('dtype') === 'torch.int64') expect(other[i][1].get('Mean')).toBe(t.get('Mean'));
        else if (t.get('Max') === other[i][1].get('Max')) same++;
        else differ++;
      });
    }
    // Parameters of healthy layers are identical; activations and gradients differ.
    expect(differ).toBeGreaterThan(same);
    expect(same).toBeGreaterThan(0);
  });

  it('writes one stack per forward entry', () => {
    const forwards = [...npu.construct.keys()].filter((k) => /\.forward(\.\d+)?$/.test(k));
    expect([...npu.stack.keys()]).toEqual(forwards);
    const frames = npu.stack.get('Functional.linear.0.forward') as string[];
    expect(frames[0]).toMatch(/^File .+, line \d+, in forward, \n /);
  });
});

describe('dump generator options', () => {
  it('is deterministic for a seed', () => {
    const a = generate({ layers: 1, bench: true, seed: 3 }).out;
    const b = generate({ layers: 1, bench: true, seed: 3 }).out;
    const c = generate({ layers: 1, bench: true, seed: 4 }).out;
    const text = (dir: string) => readFileSync(path.join(dir, 'bench/dump.json'), 'utf8');
    expect(text(a)).toBe(text(b));
    expect(text(a)).not.toBe(text(c));
  });

  it('lays out rank{r} and step{s}/rank{r} directories with collectives across ranks', () => {
    const ranks = generate({ layers: 1, ranks: 2, bench: true }).out;
    expect(readdirSync(path.join(ranks, 'npu')).sort()).toEqual(['rank0', 'rank1']);
    expect(readdirSync(path.join(ranks, 'bench')).sort()).toEqual(['rank0', 'rank1']);
    const steps = generate({ layers: 1, ranks: 2, steps: 3 }).out;
    expect(readdirSync(path.join(steps, 'npu')).sort()).toEqual(['step0', 'step1', 'step2']);
    for (const s of ['step0', 'step1', 'step2']) expect(readdirSync(path.join(steps, 'npu', s)).sort()).toEqual(['rank0', 'rank1']);
    expect(existsSync(path.join(steps, 'bench'))).toBe(false);
    const { data } = readDumpDir(path.join(steps, 'npu/step1/rank1'));
    const ar = data.get('Distributed.all_reduce.0.forward') as PyMap;
    const group = (ar.get('input_kwargs') as PyMap).get('group') as PyMap;
    expect(group.get('group_ranks')).toEqual([0n, 1n]);
    expect(group.get('group_id')).toBe('77849d8c'); // crc32("[0, 1]"), as msprobe writes it
    expect(ar.get('output')).toEqual([null]);
    const single = generate({ layers: 1 }).out;
    expect(readdirSync(path.join(single, 'npu')).sort()).toEqual(['construct.json', 'dump.json', 'stack.json']);
  });

  it('repeats forward/backward per micro step with new module counts', () => {
    const { out } = generate({ layers: 1, microSteps: 2 });
    const { construct, data } = readDumpDir(path.join(out, 'npu'));
    const roots = [...construct].filter(([, p]) => p === null).map(([k]) => k).filter((k) => k.startsWith('Module.'));
    expect(roots).toEqual([
      'Module.module.Float16Module.forward.0', 'Module.module.Float16Module.backward.0',
      'Module.module.Float16Module.forward.1', 'Module.module.Float16Module.backward.1',
    ]);
    expect(data.has('Module.module.module.output_layer.ColumnParallelLinear.parameters_grad.1')).toBe(true);
  });

  it('writes the grouped stack.json shape with the same content', () => {
    const old = readDumpDir(path.join(generate({ layers: 2, seed: 5 }).out, 'npu')).stack;
    const grouped = readDumpDir(path.join(generate({ layers: 2, seed: 5, stackFormat: 'grouped' }).out, 'npu')).stack;
    expect([...grouped.keys()][0]).toBe('0');
    const expanded = new Map<string, PyValue>();
    for (const [, group] of grouped) {
      const [names, frames] = group as [string[], string[]];
      for (const n of names) expanded.set(n, frames);
    }
    expect(expanded.size).toBe(old.size);
    for (const [name, frames] of old) expect(expanded.get(name)).toEqual(frames);
    // Layer 0 and layer 1 run the same code: their stacks are shared.
    expect(grouped.size).toBeLessThan(old.size * 0.7);
  });

  it('adds md5 to every tensor, equal where the bench side is unperturbed', () => {
    const { out } = generate({ layers: 3, bench: true, md5: true });
    const npu = readDumpDir(path.join(out, 'npu')).data;
    const bench = readDumpDir(path.join(out, 'bench')).data;
    let same = 0;
    let differ = 0;
    for (const [name, entry] of npu) {
      const other = [...tensors(bench.get(name) as PyValue, name)];
      [...tensors(entry, name)].forEach(([, t], i) => {
        expect(t.get('md5')).toMatch(/^[0-9a-f]{8}$/);
        if (t.get('md5') === other[i][1].get('md5')) same++;
        else differ++;
      });
    }
    expect(same).toBeGreaterThan(0);
    expect(differ).toBeGreaterThan(0);
  });

  it('writes the fused NPU variant, forward only, with short stacks', () => {
    const { out } = generate({ layers: 2, fused: true, forwardOnly: true, stackFrames: 1 });
    const { construct, data, stack } = readDumpDir(path.join(out, 'npu'));
    const keys = [...construct.keys()];
    expect(keys.some((k) => k.includes('backward'))).toBe(false);
    expect([...data.keys()].some((k) => k.includes('parameters_grad'))).toBe(false);
    expect(construct.get('NPU.npu_fusion_attention.1.forward')).toBe(
      'Module.module.module.decoder.layers.1.self_attention.core_attention.DotProductAttention.forward.0',
    );
    expect(keys.filter((k) => k.startsWith('NPU.npu_rms_norm.')).length).toBe(2 * 2 + 1);
    expect(keys.some((k) => k.startsWith('Functional.softmax'))).toBe(false);
    for (const [, frames] of stack) expect((frames as string[]).length).toBe(1);
  });

  it('writes NaN / Infinity tokens on the NPU side only with overflow', () => {
    const { out } = generate({ layers: 2, bench: true, overflow: true });
    const npuText = readFileSync(path.join(out, 'npu/dump.json'), 'utf8');
    expect(npuText).toMatch(/"Max": Infinity,/);
    expect(npuText).toMatch(/"Mean": NaN,/);
    expect(readFileSync(path.join(out, 'bench/dump.json'), 'utf8')).not.toMatch(/NaN|Infinity/);
  });
});

/** Minimal .npy reader for the dtypes the generator writes (C or Fortran order, little endian). */
function readNpy(file: string) {
  const buf = readFileSync(file);
  expect(buf.subarray(0, 6).toString('latin1')).toBe('\x93NUMPY');
  const headerLen = buf.readUInt16LE(8);
  expect((10 + headerLen) % 64).toBe(0);
  const header = buf.subarray(10, 10 + headerLen).toString('latin1');
  const descr = /'descr': '([^']+)'/.exec(header)![1];
  const shapeText = /'shape': \(([^)]*)\)/.exec(header)![1];
  const shape = shapeText.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const data = buf.subarray(10 + headerLen);
  const size: Record<string, number> = { '<f4': 4, '<f2': 2, '<i8': 8, '|b1': 1 };
  const values: number[] = [];
  for (let i = 0; i < data.length / size[descr]; i++) {
    if (descr === '<f4') values.push(data.readFloatLE(i * 4));
    else if (descr === '<i8') values.push(Number(data.readBigInt64LE(i * 8)));
    else if (descr === '|b1') values.push(data[i]);
    else {
      const h = data.readUInt16LE(i * 2);
      const e = (h >> 10) & 0x1f;
      const m = h & 0x3ff;
      const s = h & 0x8000 ? -1 : 1;
      values.push(e === 0 ? s * m * 2 ** -24 : e === 31 ? (m ? NaN : s * Infinity) : s * (1 + m / 1024) * 2 ** (e - 15));
    }
  }
  return { descr, shape, values, fortran: header.includes("'fortran_order': True") };
}

describe('dump generator: tensor task', () => {
  const { out, summary } = generate({ layers: 2, bench: true, tensor: true, fortran: true });

  it('writes an npy file per tensor whose values match the statistics', () => {
    expect(summary.tensorFiles).toBeGreaterThan(1000);
    const dir = path.join(out, 'npu');
    const { dump, data } = readDumpDir(dir);
    expect(dump.get('task')).toBe('tensor');
    expect(dump.get('dump_data_dir')).toBe(path.join(dir, 'dump_tensor_data'));
    const seen = new Set<string>();
    for (const [name, entry] of data) {
      for (const [flat, t] of tensors(entry, name)) {
        const dataName = t.get('data_name') as string;
        // The file name is the flattened parameter name msprobe uses as the input/output key (§2.5).
        const key = flat.replace(/\.(input_args|input_kwargs|input)\./, '.input.');
        if (!name.includes('parameters_grad')) expect(dataName).toBe(`${key}.npy`);
        if (seen.size > 400 && !dataName.includes('parameters')) continue; // check a sample, all parameters
        seen.add(dataName);
        const npy = readNpy(path.join(dir, 'dump_tensor_data', dataName));
        expect(npy.shape).toEqual((t.get('shape') as bigint[]).map(Number));
        expect(npy.descr).toBe({ 'torch.float32': '<f4', 'torch.float16': '<f2', 'torch.int64': '<i8', 'torch.bool': '|b1' }[t.get('dtype') as string]);
        if (t.get('dtype') === 'torch.bool') continue;
        const max = Math.max(...npy.values);
        const sum = npy.values.reduce((a, b) => a + b, 0);
        const norm = Math.sqrt(npy.values.reduce((a, b) => a + b * b, 0));
        expect(t.get('Max')).toBe(max);
        expect(t.get('Min')).toBe(Math.min(...npy.values));
        expect(t.get('Mean') as number).toBeCloseTo(sum / npy.values.length, 9);
        expect((t.get('Norm') as number) / norm).toBeCloseTo(1, 9);
        if (flat.includes('.parameters.') && npy.shape.length > 1) expect(npy.fortran).toBe(true);
      }
    }
    expect(seen.size).toBeGreaterThan(400);
  });

  it('perturbs bench tensors element-wise', () => {
    const name = 'Functional.linear.2.forward.output.0.npy';
    const a = readNpy(path.join(out, 'npu/dump_tensor_data', name)).values;
    const b = readNpy(path.join(out, 'bench/dump_tensor_data', name)).values;
    expect(b.length).toBe(a.length);
    expect(b).not.toEqual(a);
    const rel = a.map((x, i) => Math.abs((x - b[i]) / x));
    expect(rel.filter((r) => r < 0.05).length).toBeGreaterThan(a.length * 0.5);
  });
});

describe('dump generator CLI', () => {
  const cli = path.join(repoRoot, 'bench/dumpgen/cli.mjs');

  it('generates a dump and prints a summary', () => {
    const out = path.join(tmp, 'cli');
    const stdout = execFileSync(process.execPath, [cli, '--layers', '1', '--ranks', '2', '--bench', '--quiet', '--out', out], { encoding: 'utf8' });
    expect(stdout).toMatch(/^4 dump dirs, \d+ entries per side/);
    expect(existsSync(path.join(out, 'bench/rank1/dump.json'))).toBe(true);
  });

  it('rejects bad options with a message and a non-zero exit', () => {
    const r = spawnSync(process.execPath, [cli, '--layers', 'zero', '--out', path.join(tmp, 'bad')], { encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--layers/);
    const r2 = spawnSync(process.execPath, [cli, '--layers', '1', '--ranks', '2', '--layout', 'files', '--out', path.join(tmp, 'bad2')], { encoding: 'utf8' });
    expect(r2.status).toBe(1);
    expect(r2.stderr).toMatch(/^dumpgen: layout "files"/);
  });
});
