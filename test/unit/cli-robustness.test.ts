import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { runCli, type CliIo } from '../../server/cli/program.js';
import { loadKeyMappings } from '../../server/compare/mappingFiles.js';
import { readSides } from '../../server/compare/sideReaders.js';
import { OutputDir } from '../../server/graph/outputFiles.js';
import { TOO_DEEP_PROBLEM } from '../../src/core/formats/dumpFileError.js';
import { bundleCompareWorker } from '../helpers/workerBundles.js';
import { runCommandLine } from '../helpers/cliRun.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 12 (attack pass) regressions for the batch commands: mapping yaml cost, the one-line guard around every
 * unexpected failure, outputs of failed runs, and inputs that are not regular files.
 */

const work = mkdtempSync(path.join(os.tmpdir(), 'pb-cli-robust-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const fixtures = path.join(repoRoot, 'test/fixtures/compare-table');

const cli = (argv: string[], cwd = work) => runCommandLine(argv, cwd);

let caseN = 0;
/** A copy of the statistics dump pair fixture in a fresh directory. */
function summaryCase(): string {
  const dir = path.join(work, `case${++caseN}`);
  cpSync(path.join(fixtures, 'summary'), dir, { recursive: true });
  return dir;
}

function expectOneLine(r: { code: number; err: string }, file: RegExp): void {
  expect(r.code, r.err).toBe(2);
  expect(r.err.split('\n').filter(Boolean), r.err).toHaveLength(1);
  expect(r.err).toMatch(file);
}

describe('mapping yaml (item 4)', () => {
  it('a 40,000-key data mapping loads in linear time', () => {
    // Timed against 10,000 keys on the same machine: 4× the keys costs ~4× the time when linear, ~16× when quadratic
    // (the library's own duplicate check took ~60 s for 40,000), whatever the machine's load.
    const load = (n: number) => {
      const file = path.join(work, `big_dm_${n}.yaml`);
      let text = '';
      for (let i = 0; i < n; i++) text += `Module.layer${i}.Linear.forward.0.input.0: Module.b${i}.Linear.forward.0.input.0\n`;
      writeFileSync(file, text);
      const t0 = performance.now();
      const m = loadKeyMappings({ dataMapping: file }, () => undefined);
      expect(m.data?.size).toBe(n);
      return performance.now() - t0;
    };
    load(2_000); // warm-up: compile the parser
    const small = Math.min(load(10_000), load(10_000));
    const big = load(40_000);
    expect(big / small).toBeLessThan(9);
  });

  it('duplicate keys are still reported, naming the file and the key', async () => {
    const dir = summaryCase();
    writeFileSync(path.join(dir, 'dup_dm.yaml'), 'a.input.0: b.input.0\nc.input.0: d.input.0\na.input.0: e.input.0\n');
    const r = await cli(['compare', '-i', 'compare.json', '-o', 'out', '-dm', 'dup_dm.yaml'], dir);
    expectOneLine(r, /dup_dm\.yaml: not valid YAML \(duplicate key 'a\.input\.0' at line 3/);
    writeFileSync(path.join(dir, 'dup_cm.yaml'), 'Cell.x: Module.x\nCell.x: Module.y\n');
    const c = await cli(['-f', 'mindspore', 'compare', '-i', 'compare.json', '-o', 'out', '-cm', 'dup_cm.yaml'], dir);
    expectOneLine(c, /dup_cm\.yaml: not valid YAML \(duplicate key 'Cell\.x'/);
    writeFileSync(path.join(dir, 'dup_am.yaml'), '- ms_api: Functional.relu\n  pt_api: Functional.relu\n  ms_api: Functional.gelu\n');
    const a = await cli(['-f', 'mindspore', 'compare', '-i', 'compare.json', '-o', 'out', '-am', 'dup_am.yaml'], dir);
    expectOneLine(a, /dup_am\.yaml: not valid YAML \(duplicate key 'ms_api'/);
  });
});

describe('unexpected failures are one line naming the file, exit 2 (item 5)', () => {
  it('the top-level guard names the input file; a system error names its own path', async () => {
    let err = '';
    const io: CliIo = { out: () => undefined, err: (t) => (err += t) };
    const overflow = (p: Command) => {
      p.command('deep')
        .option('-i, --input_path <path>')
        .action(() => {
          const recurse = (n: number): number => recurse(n + 1) + 1;
          recurse(0);
        });
      p.command('open').action(() => {
        readFileSync(path.join(work, 'no-such-file.bin'));
      });
    };
    expect(await runCli(['deep', '-i', 'model.json'], [overflow], io)).toBe(2);
    expect(err).toBe('probeboard: model.json: Maximum call stack size exceeded (run with --debug for the stack)\n');
    err = '';
    expect(await runCli(['open'], [overflow], io)).toBe(2);
    expect(err.split('\n').filter(Boolean)).toHaveLength(1);
    expect(err).toMatch(new RegExp(`^probeboard: ${path.join(work, 'no-such-file.bin')}: ENOENT`));
  });

  it('stack.json lines that are not strings: the table prints them as msprobe does (was "v is not iterable")', async () => {
    const dir = summaryCase();
    const file = path.join(dir, 'npu/stack.json');
    const stacks = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    stacks['Functional.linear.0.forward'] = [1, 2.5, { a: 1 }, null];
    writeFileSync(file, JSON.stringify(stacks));
    const r = await cli(['compare', '-i', 'compare.json', '-o', 'out', '-s', '--csv', '--quiet'], dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const csv = readdirSync(path.join(dir, 'out')).find((f) => f.endsWith('.csv'))!;
    expect(readFileSync(path.join(dir, 'out', csv), 'utf8')).toContain("[1, 2.5, {'a': 1}, None]");
  });

  it('a raw control character in a dump.json or stack.json key: file, line and column', async () => {
    for (const rel of ['npu/dump.json', 'npu/stack.json']) {
      const dir = summaryCase();
      const file = path.join(dir, rel);
      writeFileSync(file, readFileSync(file, 'utf8').replace('"Functional.linear.0.forward"', '"Functional.lin\u0001ear.0.forward"'));
      const r = await cli(['compare', '-i', 'compare.json', '-o', 'out', '-s'], dir);
      expectOneLine(r, new RegExp(`^probeboard: ${file}:\\d+:${rel.includes('dump') ? 18 : 17}: control character in string\n$`));
      expect(existsSync(path.join(dir, 'out'))).toBe(false);
    }
  });

  describe('in a reading thread', () => {
    let script = '';
    beforeAll(async () => {
      script = await bundleCompareWorker(path.join(work, 'worker'));
    });

    it('a value nested 5,000 deep names the file (was "worker exit code 0")', async () => {
      const dir = summaryCase();
      const file = path.join(dir, 'npu/dump.json');
      const deep = '['.repeat(5000) + ']'.repeat(5000);
      writeFileSync(file, readFileSync(file, 'utf8').replace('"value": -0.1', `"value": ${deep}`));
      const bench = path.join(dir, 'bench/dump.json');
      await expect(readSides([file, bench], true, script)).rejects.toThrow(`${file}: ${TOO_DEEP_PROBLEM}`);
    });
  });
});

/** A one-node build dump directory and its compare.json, in a fresh directory. */
function graphCase(): string {
  const dir = path.join(work, `case${++caseN}`);
  mkdirSync(path.join(dir, 'npu'), { recursive: true });
  writeFileSync(path.join(dir, 'npu/construct.json'), '{"Tensor.add.0.forward": "Module.m.M.forward.0", "Module.m.M.forward.0": null}');
  writeFileSync(path.join(dir, 'npu/dump.json'), '{"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": null, "data": {}}');
  writeFileSync(path.join(dir, 'npu/stack.json'), '{}');
  writeFileSync(path.join(dir, 'compare.json'), '{"npu_path": "npu"}');
  return dir;
}

describe('outputs of failed runs (item 6)', () => {
  it('an output directory no one may write to, root included: one line naming it, exit 2', async () => {
    const dir = graphCase();
    // /proc/1 exists and refuses new files even to root (a chmod'ed directory would not stop root).
    const r = await cli(['graph', '-i', 'compare.json', '-o', '/proc/1', '--quiet'], dir);
    expectOneLine(r, /^probeboard: \/proc\/1: The output directory is not writable \(\w+\)\.\n$/);
    const v = await cli(['graph', '-i', 'compare.json', '-o', '/proc/1', '--quiet', '--format', 'vis'], dir);
    expectOneLine(v, /^probeboard: \/proc\/1: The output directory is not writable/);
    const c = await cli(['compare', '-i', 'compare.json', '-o', '/proc/1'], summaryCase());
    expectOneLine(c, /^probeboard: \/proc\/1: The output directory is not writable/);
  });

  it('a failed run removes its temporaries, SQLite journal included, and the directory it created', () => {
    const out = new OutputDir(path.join(work, `made${++caseN}/sub`));
    out.prepare();
    const temp = out.reserve('compare_1.vis.db');
    writeFileSync(`${temp}-journal`, 'x');
    out.abort();
    expect(existsSync(path.dirname(out.dir))).toBe(false);
  });

  it('temporaries are created with the final mode (0640)', () => {
    const out = new OutputDir(path.join(work, `mode${++caseN}`));
    out.prepare();
    const temp = out.reserve('build_1.vis.db');
    expect(statSync(temp).mode & 0o777).toBe(0o640);
    out.abort();
  });

  it('a run removes hidden temporaries of earlier runs whose process is gone, and nothing else', async () => {
    const dir = graphCase();
    const out = path.join(dir, 'out');
    mkdirSync(out);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const stale = [`.compare_1.vis.db.${dead}.0.tmp`, `.compare_1.vis.db.${dead}.0.tmp-journal`, `.build_1.vis.${dead}.3.part`];
    const kept = [`.build_2.vis.${process.ppid}.0.tmp`, '.notes.1.0.txt', `build.${dead}.0.tmp`];
    for (const name of [...stale, ...kept]) writeFileSync(path.join(out, name), 'x');
    const r = await cli(['graph', '-i', 'compare.json', '-o', 'out', '--quiet'], dir);
    expect(r.code, r.err).toBe(0);
    const left = readdirSync(out);
    for (const name of stale) expect(left).not.toContain(name);
    for (const name of kept) expect(left).toContain(name);
  });
});

describe('inputs that are not regular files (item 10)', () => {
  it('a FIFO, /dev/zero or a directory: "is not a regular file", never a hang or "not found"', async () => {
    const dir = summaryCase();
    execFileSync('mkfifo', [path.join(dir, 'fifo.json')]);
    const fifo = path.join(dir, 'fifo.json');
    expectOneLine(await cli(['compare', '-i', 'fifo.json', '-o', 'out'], dir), /fifo\.json: is not a regular file \(a FIFO\)\n$/);
    expectOneLine(await cli(['compare', '-i', '/dev/zero', '-o', 'out'], dir), /\/dev\/zero: is not a regular file \(a device\)\n$/);
    expectOneLine(await cli(['compare', '-i', 'npu', '-o', 'out'], dir), /npu: is not a regular file \(a directory\)\n$/);
    expectOneLine(await cli(['compare', '-i', 'compare.json', '-o', 'out', '-dm', 'fifo.json'], dir), /fifo\.json: is not a regular file/);
    writeFileSync(path.join(dir, 'c2.json'), JSON.stringify({ npu_path: fifo, bench_path: 'bench/dump.json' }));
    expectOneLine(await cli(['compare', '-i', 'c2.json', '-o', 'out'], dir), /fifo\.json: is not a regular file \(a FIFO\)\n$/);
    expectOneLine(await cli(['tensor', 'show', 'fifo.json'], dir), /fifo\.json: is not a regular file \(a FIFO\)\n$/);
    expectOneLine(await cli(['tensor', 'show', '/dev/zero'], dir), /\/dev\/zero: is not a regular file/);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });
});
