import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { encodeNpy } from '../../src/core/formats/npy.js';
import { runCommandLine } from '../helpers/cliRun.js';
import { pickleTensor, ptBytes } from '../helpers/torchPt.js';
import { fuzzSeeds, fuzzTimeout, mutateBytes, mutateText, pick, rng, tallyLine, type FuzzTally, type Rand } from './mutate.js';

/**
 * Mutated inputs for every reader of the batch commands (issue 12): dump.json, construct.json, stack.json,
 * compare.json, mapping YAML, npy and .pt. Each run must end with exit 0, or exit 2 and one line naming a file — no
 * engine message, no hang (10 s), no temporary file left in the output directory. `npm test` runs a quick slice;
 * `npm run fuzz` runs 1,000 per reader (PROBEBOARD_FUZZ_N).
 */

const SEEDS = fuzzSeeds(12);
const work = mkdtempSync(path.join(os.tmpdir(), 'pb-fuzz-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let base: string;
const tallies: FuzzTally[] = [];
afterAll(() => tallies.forEach((t) => console.log(tallyLine(t))));

beforeAll(() => {
  base = path.join(work, 'base');
  generateDumps({ out: base, layers: 1, bench: true, stackFrames: 4, dims: { seq: 4, hidden: 8, heads: 2, ffn: 16, vocab: 16 } });
});

const cli = (argv: string[]) => runCommandLine(argv);

/** A fresh copy of the generated dumps with one file of the NPU side replaced. */
function caseDir(tag: string, seed: number): string {
  const dir = path.join(work, `${tag}-${seed}`);
  cpSync(base, dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'compare.json'),
    JSON.stringify({ npu_path: path.join(dir, 'npu'), bench_path: path.join(dir, 'bench'), is_print_compare_log: true }),
  );
  writeFileSync(
    path.join(dir, 'compare_files.json'),
    JSON.stringify({ npu_path: path.join(dir, 'npu/dump.json'), bench_path: path.join(dir, 'bench/dump.json'), stack_path: path.join(dir, 'npu/stack.json') }),
  );
  return dir;
}

/** graph (db or vis, sometimes fuzzy) or compare (-s, sometimes --csv) on the case, picked by the seed. */
function commandFor(dir: string, r: Rand, extra: string[] = []): string[] {
  const out = path.join(dir, 'out');
  if (r() < 0.5) return ['graph', '-i', path.join(dir, 'compare.json'), '-o', out, '--quiet', '--format', pick(r, ['db', 'vis']), ...(r() < 0.3 ? ['-f'] : []), ...extra];
  return ['compare', '-i', path.join(dir, 'compare_files.json'), '-o', out, '-s', ...(r() < 0.3 ? ['--csv'] : []), ...extra];
}

/** The run's verdict: accepted, refused with one line naming a file, or a failure (the reason). */
function judge(tally: FuzzTally, label: string, dir: string, r: { code: number; err: string; ms: number }): void {
  tally.inputs++;
  tally.slowestMs = Math.max(tally.slowestMs, r.ms);
  const fail = (why: string): void => void tally.failures.push(`${label}: ${why}: ${r.err.trim().slice(0, 300)}`);
  if (r.ms > 10_000) fail(`took ${Math.round(r.ms)} ms`);
  const out = path.join(dir, 'out');
  const leftovers = existsSync(out) ? readdirSync(out).filter((f) => f.startsWith('.')) : [];
  if (leftovers.length) fail(`left ${leftovers.join(', ')}`);
  if (r.code === 0) {
    tally.accepted++;
    return;
  }
  const lines = r.err.trim().split('\n');
  if (r.code !== 2) return fail(`exit code ${r.code}`);
  if (lines.length !== 1 || !lines[0].startsWith('probeboard: ')) return fail(`${lines.length} lines`);
  if (!/\/|\.(json|yaml|npy|pt)\b/.test(lines[0])) return fail('names no file');
  if (/\bat .*\.(ts|js):\d+/.test(r.err)) return fail('a stack trace');
  tally.refused++;
}

function newTally(reader: string): FuzzTally {
  const t: FuzzTally = { reader, inputs: 0, accepted: 0, refused: 0, failures: [], slowestMs: 0 };
  tallies.push(t);
  return t;
}

describe(`fuzz: batch readers (${SEEDS.length} mutants each)`, () => {
  for (const file of ['dump.json', 'construct.json', 'stack.json']) {
    it(`${file}: mutants end in a result or one line naming the file`, async () => {
      const tally = newTally(file);
      for (const seed of SEEDS) {
        const r = rng(seed + file.length * 100_000);
        const dir = caseDir(file, seed);
        const target = path.join(dir, 'npu', file);
        writeFileSync(target, mutateText(readFileSync(target, 'utf8'), r));
        judge(tally, `${file} seed ${seed}`, dir, await cli(commandFor(dir, r)));
        rmSync(dir, { recursive: true, force: true });
      }
      expect(tally.failures.slice(0, 10)).toEqual([]);
    }, fuzzTimeout(SEEDS));
  }

  it('compare.json: mutants end in a result or one line naming the file', async () => {
    const tally = newTally('compare.json');
    for (const seed of SEEDS) {
      const r = rng(seed + 900_000);
      const dir = caseDir('cj', seed);
      for (const f of ['compare.json', 'compare_files.json']) {
        const p = path.join(dir, f);
        writeFileSync(p, mutateText(readFileSync(p, 'utf8'), r));
      }
      judge(tally, `compare.json seed ${seed}`, dir, await cli(commandFor(dir, r)));
      rmSync(dir, { recursive: true, force: true });
    }
    expect(tally.failures.slice(0, 10)).toEqual([]);
  }, fuzzTimeout(SEEDS));

  it('mapping YAML (-dm for compare, -lm for graph): mutants end in a result or one line naming the file', async () => {
    const tally = newTally('mapping yaml');
    const names = Object.keys(JSON.parse(readFileSync(path.join(base, 'npu/dump.json'), 'utf8')).data as object).slice(0, 40);
    const dataMapping = names.flatMap((n) => [`${n}.input.0: ${n}.input.0`, `${n}.output.0: ${n}.output.0`]).join('\n') + '\n';
    const layerMapping = 'TopLayer:\n  layers: layers\nGPTLayer:\n  attn: attn\n  mlp: mlp\n';
    for (const seed of SEEDS) {
      const r = rng(seed + 1_300_000);
      const dir = caseDir('yaml', seed);
      const yaml = path.join(dir, 'mapping.yaml');
      const graph = r() < 0.5;
      writeFileSync(yaml, mutateText(graph ? layerMapping : dataMapping, r));
      const argv = graph
        ? ['graph', '-i', path.join(dir, 'compare.json'), '-o', path.join(dir, 'out'), '--quiet', '-lm', yaml]
        : ['compare', '-i', path.join(dir, 'compare_files.json'), '-o', path.join(dir, 'out'), '-dm', yaml];
      judge(tally, `yaml seed ${seed}`, dir, await cli(argv));
      rmSync(dir, { recursive: true, force: true });
    }
    expect(tally.failures.slice(0, 10)).toEqual([]);
  }, fuzzTimeout(SEEDS));

  it('npy and .pt (tensor show / diff): mutants end in a result or one line naming the file', async () => {
    const npyTally = newTally('npy');
    const ptTally = newTally('.pt');
    const dir = path.join(work, 'tensors');
    mkdirSync(dir);
    const values = Array.from({ length: 64 }, (_, i) => Math.sin(i) * 100);
    const npyBases = [encodeNpy(values, '<f4', [8, 8]), encodeNpy(values, '<f2', [64]), encodeNpy(values, '>f8', [4, 16], { fortranOrder: true })];
    const ptBase = ptBytes(pickleTensor({ storage: 'FloatStorage', size: [8, 8], stride: [8, 1], numel: 64 }), new Uint8Array(Float32Array.from(values).buffer));
    const good = path.join(dir, 'good.npy');
    writeFileSync(good, npyBases[0]);
    for (const seed of SEEDS) {
      for (const [tally, ext] of [[npyTally, 'npy'], [ptTally, 'pt']] as const) {
        const r = rng(seed + (ext === 'npy' ? 1_700_000 : 2_100_000));
        const file = path.join(dir, `m${seed}.${ext}`);
        writeFileSync(file, mutateBytes(ext === 'npy' ? pick(r, npyBases) : ptBase, r, 64));
        const argv = r() < 0.5 ? ['tensor', 'show', file] : ['tensor', 'diff', file, ext === 'npy' ? good : file];
        judge(tally, `${ext} seed ${seed}`, dir, await cli(argv));
        rmSync(file, { force: true });
      }
    }
    expect(npyTally.failures.slice(0, 10)).toEqual([]);
    expect(ptTally.failures.slice(0, 10)).toEqual([]);
  }, fuzzTimeout(SEEDS));
});
