import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { registerGraphCommand } from '../../server/cli/graph.js';
import { registerMergeCommand } from '../../server/cli/merge.js';
import { runCli, type CliIo } from '../../server/cli/program.js';
import { addP2pRing, dbRows, nodeRowsById } from '../helpers/shards.js';
import { readDumpDirForBuild } from '../../server/graph/readDumpDir.js';

/**
 * Sharded builds (issue 19): `graph --shard K/N` slices, each shard's rows (matched_distributed included, whose two
 * ends often live in different shards) equal to a single build's, `merge` equal row for row to the single build,
 * and the bad inputs: shard specs, ranks the dump lacks, missing / overlapping / foreign / truncated shards.
 */

let tmp: string;
let buildJson: string;
let compareJson: string;
/** The compare dump's NPU and Bench roots (`rank{R}` directories). */
let cmpRoots: string[];
let single: string;

async function cli(argv: string[], env?: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t) };
  // The scheduler's variables are this call's only (a test run inside a Slurm job must not see its own).
  const keys = ['SLURM_ARRAY_TASK_ID', 'SLURM_ARRAY_TASK_MIN', 'SLURM_ARRAY_TASK_MAX', 'SLURM_ARRAY_TASK_COUNT', 'JOB_COMPLETION_INDEX'];
  const saved = keys.map((k) => [k, process.env[k]] as const);
  for (const k of keys) delete process.env[k];
  Object.assign(process.env, env ?? {});
  try {
    const registrars = [registerGraphCommand, registerMergeCommand].map((r) => (p: Parameters<typeof r>[0]) => r(p, io));
    const code = await runCli(argv, registrars, io);
    return { code, out, err };
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

async function graph(input: string, out: string, ...extra: string[]): Promise<string[]> {
  const r = await cli(['graph', '-i', input, '-o', out, '--quiet', ...extra]);
  expect(r.err, r.err).toBe('');
  expect(r.code).toBe(0);
  return fs.readdirSync(out).filter((f) => !f.startsWith('.')).sort().map((f) => path.join(out, f));
}

/** A 4-rank md5 compare dump with the P2P ring, its Bench ring tensors different from the NPU's. */
function md5CompareJson(): string {
  const d = generateDumps({ out: path.join(tmp, 'm4'), layers: 1, ranks: 4, steps: 1, bench: true, md5: true, seed: 7, log: () => {} });
  for (const root of [d.npuPath, d.benchPath!]) {
    addP2pRing(root);
    // No communication node has md5 then: a read of those alone would take the dump for a summary one.
    for (const r of fs.readdirSync(root)) {
      const f = path.join(root, r, 'dump.json');
      let text = fs.readFileSync(f, 'utf8');
      for (let start = 0; (start = text.indexOf('"Distributed.all_reduce.', start + 1)) >= 0; ) {
        let end = text.indexOf('{', start);
        for (let depth = 0; ; end++) {
          depth += text[end] === '{' ? 1 : text[end] === '}' ? -1 : 0;
          if (depth === 0) break;
        }
        const entry = text.slice(start, end);
        expect(entry).toContain('"md5"');
        text = text.slice(0, start) + entry.replace(/,\s*"md5": "[0-9a-f]+"/g, '') + text.slice(end);
      }
      fs.writeFileSync(f, text);
    }
  }
  perturbRing(d.benchPath!);
  return d.compareJson;
}

/** The ring's Bench tensors made to differ from the NPU's, so its nodes get precision indices of differing nodes. */
function perturbRing(benchRoot: string): void {
  for (const r of fs.readdirSync(benchRoot)) {
    const f = path.join(benchRoot, r, 'dump.json');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replaceAll('"Max":1.5,', '"Max":1.75,'));
  }
}

function distributedValue(file: string, id: string): unknown {
  const row = nodeRowsById(file).get(id);
  return row ? JSON.parse(String(row.matched_distributed)) : undefined;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'probeboard-shards-'));
  const build = generateDumps({ out: path.join(tmp, 'd8'), layers: 1, ranks: 8, steps: 2, seed: 3, log: () => {} });
  addP2pRing(build.npuPath);
  buildJson = build.compareJson;
  const cmp = generateDumps({ out: path.join(tmp, 'c4'), layers: 1, ranks: 4, steps: 1, bench: true, overflow: true, seed: 5, log: () => {} });
  addP2pRing(cmp.npuPath);
  addP2pRing(cmp.benchPath!);
  perturbRing(cmp.benchPath!);
  compareJson = cmp.compareJson;
  cmpRoots = [cmp.npuPath, cmp.benchPath!];
  [single] = await graph(buildJson, path.join(tmp, 'single'));
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('graph --shard', () => {
  let shards: string[];
  beforeAll(async () => {
    const out = path.join(tmp, 'shards4');
    for (let k = 0; k < 4; k++) await graph(buildJson, out, '--shard', `${k}/4`);
    shards = fs.readdirSync(out).sort().map((f) => path.join(out, f));
  }, 120_000);

  it('writes one file per shard, named for the build, with balanced slices', () => {
    expect(shards.map((f) => path.basename(f))).toEqual(
      [0, 1, 2, 3].map((k) => expect.stringMatching(new RegExp(`^build_[0-9a-f]{12}_shard${k}of4\\.vis\\.db$`))),
    );
    expect(new Set(shards.map((f) => path.basename(f).split('_')[1])).size).toBe(1);
    // 16 (step, rank) pairs: 4 a shard, step-major; the slice and the build's lists are recorded in the file.
    const graphIds = shards.map((f) => [...new Set([...nodeRowsById(f).values()].map((r) => r.graph_id))].sort());
    expect(graphIds[1]).toEqual(['NPU_0_4', 'NPU_0_5', 'NPU_0_6', 'NPU_0_7']);
    expect(graphIds[2]).toEqual(['NPU_1_0', 'NPU_1_1', 'NPU_1_2', 'NPU_1_3']);
    const cfg = dbRows(shards[2]).tables.tb_config[0];
    expect(cfg.filter((_, i) => i % 2 === 1).slice(7)).toEqual(['[0, 1, 2, 3]', '[1]']);
  });

  it("each shard's rows equal the single build's, matched_distributed across shards included", () => {
    const all = nodeRowsById(single);
    let crossShard = 0;
    for (const file of shards) {
      for (const [id, row] of nodeRowsById(file)) {
        expect(row, id).toEqual(all.get(id));
        if (id.includes('Distributed.') && row.matched_distributed !== '{}') crossShard++;
      }
    }
    expect(crossShard).toBeGreaterThan(0);
    // The two ends in different shards: rank 3 (shard 0) sends to rank 4 (shard 1); rank 5 gets rank 0's broadcast.
    expect(distributedValue(shards[0], 'NPU_0_3_Distributed.send.0.forward')).toEqual({
      communications_type: 'send',
      nodes_info: { '4': ['Nan', 'Distributed.recv.0.forward'] },
    });
    expect(distributedValue(shards[1], 'NPU_0_5_Distributed.broadcast.0.forward')).toEqual({
      communications_type: 'receive',
      nodes_info: { '0': ['Nan', 'Distributed.broadcast.0.forward'] },
    });
    const allReduce = distributedValue(shards[3], 'NPU_1_7_Distributed.all_reduce.0.forward') as { nodes_info: object };
    expect(Object.keys(allReduce.nodes_info)).toEqual(['0', '1', '2', '3', '4', '5', '6']);
  });

  it('merge: equal row for row to the single build (rowids, storage classes, schema)', async () => {
    const out = path.join(tmp, 'merged.vis.db');
    const r = await cli(['merge', ...shards.slice().reverse(), '-o', out]);
    expect(r.err).toBe('');
    expect(r.out).toBe(`probeboard: merged 4 shards (16 graphs) → ${out}\n`);
    const merged = dbRows(out);
    const whole = dbRows(single);
    expect(merged.tables.tb_nodes.length).toBe(whole.tables.tb_nodes.length);
    expect(merged).toEqual(whole);
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('--shard auto: a Slurm array task (0- or 1-based array), a Kubernetes Indexed Job', async () => {
    const slurm = path.join(tmp, 'auto-slurm');
    for (const id of [1, 2]) {
      const r = await cli(['graph', '-i', buildJson, '-o', slurm, '--quiet', '--shard', 'auto'], {
        SLURM_ARRAY_TASK_ID: String(id),
        SLURM_ARRAY_TASK_MIN: '1',
        SLURM_ARRAY_TASK_MAX: '2',
        SLURM_ARRAY_TASK_COUNT: '2',
      });
      expect(r.code, r.err).toBe(0);
    }
    const k8s = path.join(tmp, 'auto-k8s');
    for (const id of [0, 1]) {
      const r = await cli(['graph', '-i', buildJson, '-o', k8s, '--quiet', '--shard', 'auto', '--shard-count', '2'], { JOB_COMPLETION_INDEX: String(id) });
      expect(r.code, r.err).toBe(0);
    }
    const names = (d: string) => fs.readdirSync(d).sort();
    expect(names(slurm)).toEqual(names(k8s));
    expect(names(slurm)).toEqual([expect.stringMatching(/_shard0of2\.vis\.db$/), expect.stringMatching(/_shard1of2\.vis\.db$/)]);
    const out = path.join(tmp, 'auto.vis.db');
    expect((await cli(['merge', ...names(slurm).map((f) => path.join(slurm, f)), '-o', out])).code).toBe(0);
    expect(dbRows(out)).toEqual(dbRows(single));
  }, 60_000);

  it('compare runs with -oc: shards merged equal a single compare', async () => {
    const [whole] = await graph(compareJson, path.join(tmp, 'cmp-single'), '-oc');
    const dir = path.join(tmp, 'cmp-shards');
    for (let k = 0; k < 3; k++) await graph(compareJson, dir, '-oc', '--shard', `${k}/3`);
    const out = path.join(tmp, 'cmp-merged.vis.db');
    expect((await cli(['merge', ...fs.readdirSync(dir).map((f) => path.join(dir, f)), '-o', out])).code).toBe(0);
    expect(dbRows(out)).toEqual(dbRows(whole));
    expect(distributedValue(out, 'Bench_0_1_Distributed.recv.0.forward')).toMatchObject({ nodes_info: { '0': expect.any(Array) } });
  }, 60_000);

  it.each([
    ['summary', []],
    ['summary', ['-f']],
    // The communication entries have no md5: the mode comes from the others, which a peer's read passes over.
    ['md5', []],
  ])(
    'compare runs (%s %j): peers in other shards are compared for their communication nodes; merged equal a single compare',
    async (task: string, opts: string[]) => {
      const tag = task + opts.join('');
      const input = task === 'md5' ? md5CompareJson() : compareJson;
      const [whole] = await graph(input, path.join(tmp, `cmpx-single${tag}`), ...opts);
      const dir = path.join(tmp, `cmpx-shards${tag}`);
      for (let k = 0; k < 3; k++) await graph(input, dir, ...opts, '--shard', `${k}/3`);
      const out = path.join(tmp, `cmpx-merged${tag}.vis.db`);
      expect((await cli(['merge', ...fs.readdirSync(dir).map((f) => path.join(dir, f)), '-o', out])).code).toBe(0);
      expect(dbRows(out)).toEqual(dbRows(whole));
      // Shard 1 holds rank 1 alone: its recv and broadcast name rank 0's send and broadcast with their precision
      // indices, which only a comparison of rank 0's nodes gives.
      const shard1 = path.join(dir, fs.readdirSync(dir).find((f) => f.includes('_shard1of3'))!);
      for (const [id, peer] of [['recv', 'send'], ['broadcast', 'broadcast']]) {
        const value = distributedValue(shard1, `NPU_0_1_Distributed.${id}.0.forward`) as { nodes_info: Record<string, string[]> };
        expect(value.nodes_info['0'][1]).toBe(`Distributed.${peer}.0.forward`);
        // Summary: Max's relative error. md5 compares md5 values, which the ring's items lack alike: 1, a pass.
        expect(value.nodes_info['0'][0]).toBe(task === 'md5' ? '1' : '0.14285714285714285');
      }
    },
    60_000,
  );

  it("a compare shard does not build its peers: their stack.json is never read", async () => {
    const [whole] = await graph(compareJson, path.join(tmp, 'nostack-single'));
    // Rank 3 is rank 0's sender, rank 2's receiver and in every collective: shard 0 of 2 (ranks 0, 1) needs it.
    const stacks = cmpRoots.map((root) => path.join(root, 'rank3', 'stack.json'));
    for (const f of stacks) fs.renameSync(f, `${f}.away`);
    try {
      const dir = path.join(tmp, 'nostack-shards');
      const [shard0] = await graph(compareJson, dir, '--shard', '0/2');
      const all = nodeRowsById(whole);
      let peers = 0;
      for (const [id, row] of nodeRowsById(shard0)) {
        expect(row, id).toEqual(all.get(id));
        if (/_Distributed\./.test(id) && String(row.matched_distributed).includes('"3"')) peers++;
      }
      expect(peers).toBeGreaterThan(0);
      // Building rank 3 (its own shard) needs the file: a peer built in full would have failed the same way.
      const r = await cli(['graph', '-i', compareJson, '-o', path.join(tmp, 'nostack-1'), '--quiet', '--shard', '1/2']);
      expect([r.code, r.err]).toEqual([2, `probeboard: ${stacks[0]}: The file does not exist.\n`]);
    } finally {
      for (const f of stacks) fs.renameSync(`${f}.away`, f);
    }
  }, 60_000);

  it('--format vis: the shard files are the single build\'s files under the build\'s name', async () => {
    const one = await graph(buildJson, path.join(tmp, 'vis-single'), '--format', 'vis');
    const dir = path.join(tmp, 'vis-shards');
    for (let k = 0; k < 2; k++) await graph(buildJson, dir, '--format', 'vis', '--shard', `${k}/2`);
    const parts = fs.readdirSync(dir).sort();
    expect(parts).toHaveLength(16);
    const unit = (f: string) => /_(step\d+_rank\d+)_/.exec(path.basename(f))![1];
    const byUnit = new Map(one.map((f) => [unit(f), fs.readFileSync(f, 'utf8')]));
    for (const f of parts) expect(fs.readFileSync(path.join(dir, f), 'utf8') === byUnit.get(unit(f)), f).toBe(true);
  }, 60_000);
});

describe('graph --ranks / --steps', () => {
  it('builds only the selected pairs', async () => {
    const [file] = await graph(buildJson, path.join(tmp, 'sel'), '--ranks', '1-2,6', '--steps', '1');
    const ids = [...new Set([...nodeRowsById(file).values()].map((r) => r.graph_id))].sort();
    expect(ids).toEqual(['NPU_1_1', 'NPU_1_2', 'NPU_1_6']);
    const cfg = dbRows(file).tables.tb_config[0].filter((_, i) => i % 2 === 1);
    expect(cfg.slice(7)).toEqual(['[1, 2, 6]', '[1]']);
  });
});

describe('bad input: one line naming the file, exit code 2, nothing written', () => {
  it.each([
    [['--ranks', '3,99'], /: --ranks 99: not in the dump \(it has ranks 0-7\)\.$/],
    [['--steps', '5'], /: --steps 5: not in the dump \(it has steps 0-1\)\.$/],
    [['--ranks', '2-1'], /^--ranks "2-1": expected numbers and ranges/],
    [['--shard', '4/4'], /^--shard 4\/4: the shard number must be 0 to N-1/],
    [['--shard', '17/17'], /^--shard 17\/17: the shard number/],
    [['--shard', '0/17'], /d8\/npu: --shard 0\/17: only 16 \(step, rank\) pairs to build; use at most 16 shards\.$/],
    [['--shard', 'auto'], /^--shard auto: neither SLURM_ARRAY_TASK_ID/],
    [['--shard', 'auto', '--shard-count', '4'], /^--shard auto: neither SLURM_ARRAY_TASK_ID/],
    [['--shard', '1/2', '--shard-count', '4'], /^--shard-count goes with --shard auto only$/],
  ])('graph %j', async (args, message) => {
    const out = path.join(tmp, 'bad-out');
    const r = await cli(['graph', '-i', buildJson, '-o', out, '--quiet', ...args]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^probeboard: [^\n]+\n$/);
    expect(r.err.slice('probeboard: '.length).trimEnd()).toMatch(message);
    expect(fs.existsSync(out) ? fs.readdirSync(out) : []).toEqual([]);
  });

  it('graph --shard auto: a sparse Slurm array, a Kubernetes job without --shard-count', async () => {
    const sparse = await cli(['graph', '-i', buildJson, '-o', path.join(tmp, 'x'), '--shard', 'auto'], {
      SLURM_ARRAY_TASK_ID: '4',
      SLURM_ARRAY_TASK_MIN: '0',
      SLURM_ARRAY_TASK_MAX: '6',
      SLURM_ARRAY_TASK_COUNT: '4',
    });
    expect([sparse.code, sparse.err]).toEqual([2, 'probeboard: --shard auto: the Slurm array must be contiguous (--array=0-3), not 0-6 with 4 tasks\n']);
    const k8s = await cli(['graph', '-i', buildJson, '-o', path.join(tmp, 'x'), '--shard', 'auto'], { JOB_COMPLETION_INDEX: '1' });
    expect(k8s.code).toBe(2);
    expect(k8s.err).toMatch(/^probeboard: --shard auto with JOB_COMPLETION_INDEX needs --shard-count N/);
  });

  describe('merge', () => {
    let parts: string[];
    let other: string[];
    beforeAll(async () => {
      parts = [];
      for (let k = 0; k < 3; k++) parts.push(...(await graph(buildJson, path.join(tmp, `m3-${k}`), '--shard', `${k}/3`)));
      other = [];
      for (let k = 0; k < 3; k++) other.push(...(await graph(buildJson, path.join(tmp, `o3-${k}`), '--shard', `${k}/3`, '--steps', '0')));
    }, 120_000);

    const merge = async (files: string[], out = path.join(tmp, 'mout', 'm.vis.db'), ...extra: string[]) => {
      fs.mkdirSync(path.dirname(out), { recursive: true });
      const r = await cli(['merge', ...files, '-o', out, ...extra]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^probeboard: [^\n]+\n$/);
      // Nothing written, not even a temporary file.
      expect(fs.readdirSync(path.dirname(out)).filter((f) => f !== 'existing.vis.db')).toEqual([]);
      return r.err.trimEnd();
    };

    it('a missing shard', async () => {
      expect(await merge([parts[0], parts[2]])).toBe(`probeboard: ${parts[0]}: shard 1 of 3 of build ${path.basename(parts[0]).split('_')[1]} is missing.`);
    });

    it('overlapping shards (the same shard twice, a copy of it)', async () => {
      const copy = path.join(tmp, 'copy-of-shard1.vis.db');
      fs.copyFileSync(parts[1], copy);
      expect(await merge([...parts, copy])).toBe(`probeboard: ${copy}: overlaps ${parts[1]}: both are shard 1 of 3.`);
    });

    it('shards of different builds', async () => {
      expect(await merge([parts[0], other[1], parts[2]])).toMatch(
        new RegExp(`^probeboard: ${other[1]}: a shard of another build \\(build [0-9a-f]{12}, 3 shards\\) than ${parts[0]} \\(build [0-9a-f]{12}, 3 shards\\)\\.$`),
      );
    });

    it('a shard truncated by a killed copy, a file that is no shard', async () => {
      const cut = path.join(tmp, 'cut.vis.db');
      const bytes = fs.readFileSync(parts[1]);
      fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
      expect(await merge([parts[0], cut, parts[2]])).toMatch(new RegExp(`^probeboard: ${cut}: damaged or truncated \\(.+\\); build this shard again\\.$`));
      expect(await merge([parts[0], single])).toBe(`probeboard: ${single}: not a shard: it was not written by "probeboard graph --shard K/N".`);
      const text = path.join(tmp, 'text.vis.db');
      fs.writeFileSync(text, 'not sqlite at all, just long enough to have a header that is not SQLite\'s own.....');
      expect(await merge([text])).toMatch(new RegExp(`^probeboard: ${text}: (cannot be opened as a \\.vis\\.db|damaged or truncated) \\(`));
    });

    it('an existing output is kept unless --force; the output is no shard', async () => {
      const existing = path.join(tmp, 'mout', 'existing.vis.db');
      fs.mkdirSync(path.dirname(existing), { recursive: true });
      fs.writeFileSync(existing, 'keep me');
      expect(await merge(parts, existing)).toBe(`probeboard: ${existing}: the output file exists (add --force to replace it).`);
      expect(fs.readFileSync(existing, 'utf8')).toBe('keep me');
      const r = await cli(['merge', ...parts, '-o', existing, '--force']);
      expect(r.code, r.err).toBe(0);
      expect(dbRows(existing)).toEqual(dbRows(single));
      fs.rmSync(existing);
      const before = fs.readFileSync(parts[0]);
      const same = await cli(['merge', ...parts, '-o', parts[0], '--force']);
      expect([same.code, same.err]).toEqual([2, `probeboard: ${parts[0]}: the output is one of the shards to merge.\n`]);
      expect(fs.readFileSync(parts[0]).equals(before)).toBe(true);
      expect(fs.readdirSync(path.dirname(parts[0]))).toEqual([path.basename(parts[0])]);
    });
  });
});

describe('reading a peer rank for its communication nodes only', () => {
  it('passes over the other entries (brackets and quotes inside strings too) and reads the same items', () => {
    const dir = path.join(tmp, 'peer');
    fs.mkdirSync(dir);
    const tensor = '{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": -1.0, "Mean": 0.0, "Norm": 1.4, "requires_grad": false}';
    const tricky = '{"input_args": [{"type": "str", "value": "}]\\"{[ \\\\"}, [[], {}]], "output": [' + tensor + ']}';
    const send = `{"input_args": [${tensor}], "input_kwargs": {"dst": {"type": "int", "value": 1}}, "output": [${tensor}]}`;
    fs.writeFileSync(
      path.join(dir, 'dump.json'),
      `{"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": null, "data": {"Torch.a.0.forward": ${tricky}, "Distributed.send.0.forward": ${send}, "Torch.b.0.forward": ${tricky}}}`,
    );
    fs.writeFileSync(path.join(dir, 'construct.json'), '{"Torch.a.0.forward": null, "Distributed.send.0.forward": null, "Torch.b.0.forward": null}');
    fs.writeFileSync(path.join(dir, 'stack.json'), '{}');
    const only = readDumpDirForBuild(dir, { only: (n) => n.startsWith('Distributed'), skipStack: true });
    expect([...only.entries.names()]).toEqual(['Distributed.send.0.forward']);
    const all = readDumpDirForBuild(dir);
    expect([...all.entries.names()]).toEqual(['Torch.a.0.forward', 'Distributed.send.0.forward', 'Torch.b.0.forward']);
    const items = (d: typeof all) => {
      const n = d.entries.take('Distributed.send.0.forward')!;
      return [[...n.inputData].map(([k, v]) => [k, [...v.entries()]]), [...n.outputData].map(([k, v]) => [k, [...v.entries()]])];
    };
    expect(items(only)).toEqual(items(all));
  });
});
