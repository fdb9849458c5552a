import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { Writable } from 'node:stream';
import { RunInterrupted } from '../../server/interrupt.js';
import { runCli, type CliIo } from '../../server/cli/program.js';
import { CompareProgressBar } from '../../server/compare/compareProgress.js';
import { readSide } from '../../server/compare/readSide.js';
import { readSides } from '../../server/compare/sideReaders.js';
import { openXlsxSink } from '../../server/compare/resultSinks.js';
import { runCompareCommand, type CompareCommandOptions } from '../../server/compare/runCompare.js';
import { tableHeader } from '../../src/core/compareTable/columns.js';
import { encodeNpy } from '../../src/core/formats/npy.js';
import { bundleCompareWorker } from '../helpers/workerBundles.js';
import { runCommandLine } from '../helpers/cliRun.js';
import { repoRoot, sharedDataDir } from '../helpers/shared.js';
import { bookDifferences, readBook } from './compare-table-helpers.js';

/**
 * The `compare` and `tensor` command lines (msprobe's spellings), bad input (one line naming the file, exit code 2,
 * no files left behind), the progress bar, worker-thread reading, and the streaming xlsx writer's sheet split.
 */

const work = mkdtempSync(path.join(os.tmpdir(), 'pb-compare-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const fixtures = path.join(repoRoot, 'test/fixtures/compare-table');

const cli = (argv: string[], cwd = work) => runCommandLine(argv, cwd);

/** A statistics dump pair (copied from golden pt_summary into the fixtures) in a fresh directory. */
/** A golden compare case copied into `work/as` without its outputs; null without ../shared. */
function goldenCaseCopy(name: string, as: string): string | null {
  const shared = sharedDataDir();
  if (!shared) return null;
  const dir = path.join(work, as);
  cpSync(path.join(shared, 'golden-compare', name), dir, { recursive: true });
  rmSync(path.join(dir, 'out'), { recursive: true });
  return dir;
}

/** `runCompareCommand` options of a plain run of `cwd/compare.json` into `out` (no flags); `extra` overrides. */
function compareOptions(cwd: string, extra: Partial<CompareCommandOptions> = {}): CompareCommandOptions {
  return {
    cwd,
    inputPath: 'compare.json',
    outputPath: 'out',
    stackMode: false,
    compareOnly: false,
    fuzzyMatch: false,
    highlight: false,
    diffAnalyze: false,
    csv: false,
    framework: 'pytorch',
    info: () => undefined,
    warn: () => undefined,
    ...extra,
  };
}

function summaryCase(name: string): string {
  const dir = path.join(work, name);
  cpSync(path.join(fixtures, 'summary'), dir, { recursive: true });
  return dir;
}

describe('probeboard compare (command line)', () => {
  it('msprobe spelling: leading -f framework, two-letter flags, default output dir', async () => {
    const dir = summaryCase('spelling');
    const r = await cli(['-f', 'pytorch', 'compare', '-i', 'compare.json', '-o', 'out', '-hl', '-c'], dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const files = readdirSync(path.join(dir, 'out'));
    expect(files).toEqual([expect.stringMatching(/^compare_result_\d{14}\.xlsx$/)]);
    const book = await readBook(path.join(dir, 'out', files[0]));
    expect(Object.keys(book)).toEqual(['Sheet']);
    expect(r.out).toMatch(/compared \d+ rows/);
  });

  it('--csv writes the same table as CSV; the advisor lines are printed', async () => {
    const dir = summaryCase('csv');
    const r = await cli(['compare', '-i', 'compare.json', '-o', 'out', '--csv'], dir);
    expect(r.code).toBe(0);
    const csv = readdirSync(path.join(dir, 'out')).find((f) => f.endsWith('.csv'))!;
    const lines = readFileSync(path.join(dir, 'out', csv), 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe(tableHeader('summary', true).join(','));
    expect(r.out).toMatch(/^Line: \d+$/m);
    expect(readdirSync(path.join(dir, 'out')).some((f) => /^advisor_\d{14}\.txt$/.test(f))).toBe(true);
  });

  it('tensor show / diff (msprobe precision tool spellings -al/-rl)', async () => {
    const dir = path.join(work, 'tensor');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'a.npy'), encodeNpy([1, 2, 3, 4], '<f4', [2, 2]));
    writeFileSync(path.join(dir, 'b.npy'), encodeNpy([1, 2, 3, 5], '<f4', [2, 2]));
    const show = await cli(['tensor', 'show', 'a.npy'], dir);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/Shape:\s+\(2, 2\)/);
    expect(show.out).toMatch(/Mean:\s+2\.5/);
    const diff = await cli(['tensor', 'diff', 'a.npy', 'b.npy', '-al', '0.01', '-rl', '0', '-p', '1'], dir);
    expect(diff.code).toBe(0);
    expect(diff.out).toMatch(/ErrorCnt:\s+1/);
    expect(diff.out).toMatch(/\(1, 1\)\s+4\s+5\s+1/);
    const bad = await cli(['tensor', 'show', 'missing.npy'], dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('probeboard: missing.npy: not found\n');
    writeFileSync(path.join(dir, 'junk.npy'), 'not numpy at all');
    const junk = await cli(['tensor', 'show', 'junk.npy'], dir);
    expect(junk.code).toBe(2);
    expect(junk.err).toMatch(/^probeboard: junk\.npy: not a \.npy file \(bad magic\)\n$/);
  });

  it('-am with pytorch is refused', async () => {
    const dir = summaryCase('am');
    const r = await cli(['compare', '-i', 'compare.json', '-o', 'out', '-am'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^probeboard: .*-cm or -am is not supported in PyTorch framework\n$/);
  });
});

describe('bad input: one line naming the file, exit code 2, nothing left behind', () => {
  async function expectFailure(dir: string, argv: string[], pattern: RegExp): Promise<void> {
    const r = await cli(argv, dir);
    expect(r.code, r.err).toBe(2);
    expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.err).toMatch(/^probeboard: \S.*: .+\n$/);
    expect(r.err).toMatch(pattern);
    const out = path.join(dir, 'out');
    // The output directory this run created is gone again (nothing half-written).
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  }

  it('malformed dump.json: file, line and column', async () => {
    const dir = summaryCase('malformed');
    const file = path.join(dir, 'npu/dump.json');
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l, i) => i > 15 && l.includes('": '));
    lines[at] = lines[at].replace('": ', '":: ');
    writeFileSync(file, lines.join('\n'));
    const column = lines[at].indexOf('::') + 2;
    await expectFailure(dir, ['compare', '-i', 'compare.json', '-o', 'out'], new RegExp(`npu/dump\\.json:${at + 1}:${column}: unexpected ':'`));
  });

  it('a dump.json nested too deeply for the readers: named, not a bare stack overflow', async () => {
    const dir = summaryCase('deep');
    const deep = '['.repeat(60_000) + ']'.repeat(60_000);
    writeFileSync(path.join(dir, 'bench/dump.json'), `{"task": "statistics", "data": {"Functional.relu.0.forward": {"input_args": ${deep}}}}`);
    await expectFailure(dir, ['compare', '-i', 'compare.json', '-o', 'out'], /bench\/dump\.json: The JSON is nested too deeply to be read/);
  });

  it('compare.json missing, not JSON, or not naming two dumps', async () => {
    const dir = summaryCase('compare-json');
    await expectFailure(dir, ['compare', '-i', 'nope.json', '-o', 'out'], /nope\.json: compare\.json not found/);
    writeFileSync(path.join(dir, 'broken.json'), '{"npu_path": "npu/dump.json",');
    await expectFailure(dir, ['compare', '-i', 'broken.json', '-o', 'out'], /broken\.json:1:\d+: /);
    writeFileSync(path.join(dir, 'half.json'), JSON.stringify({ npu_path: 'npu/dump.json' }));
    await expectFailure(dir, ['compare', '-i', 'half.json', '-o', 'out'], /half\.json: 'bench_path' is missing/);
    writeFileSync(path.join(dir, 'mixed.json'), JSON.stringify({ npu_path: 'npu/dump.json', bench_path: 'bench' }));
    await expectFailure(dir, ['compare', '-i', 'mixed.json', '-o', 'out'], /mixed\.json: npu_path and bench_path must both be/);
  });

  it('an output path that is a file', async () => {
    const dir = summaryCase('out-file');
    writeFileSync(path.join(dir, 'taken'), '');
    const r = await cli(['compare', '-i', 'compare.json', '-o', 'taken'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^probeboard: .*taken: The output path exists and is not a directory\.\n$/);
  });

  it('an unknown flag is a usage error', async () => {
    const dir = summaryCase('flag');
    const r = await cli(['compare', '-i', 'compare.json', '-o', 'out', '--no-such-flag'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^probeboard: error: unknown option '--no-such-flag'\n$/);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('an unexpected internal error: one line naming the input file, exit 2; --debug prints the stack', async () => {
    let err = '';
    const io: CliIo = { out: () => undefined, err: (t) => (err += t) };
    const boom = (p: Command) => {
      p.command('boom')
        .option('-i, --input_path <path>')
        .action(() => {
          throw new Error('internal invariant broken');
        });
    };
    expect(await runCli(['boom', '-i', 'in.json'], [boom], io)).toBe(2);
    expect(err).toBe('probeboard: in.json: internal invariant broken (run with --debug for the stack)\n');
    err = '';
    expect(await runCli(['boom', '-i', 'in.json', '--debug'], [boom], io)).toBe(2);
    expect(err.split('\n')[0]).toBe('probeboard: in.json: internal invariant broken');
    expect(err).toMatch(/\n\s+at .*compare-table-cli\.test\.ts/);
  });

  it('truncated dump.json', async () => {
    const dir = summaryCase('truncated');
    const file = path.join(dir, 'bench/dump.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 3000));
    await expectFailure(dir, ['compare', '-i', 'compare.json', '-o', 'out'], /bench\/dump\.json:\d+:\d+: unexpected end of file/);
  });

  it('missing dump.json', async () => {
    const dir = summaryCase('missing');
    rmSync(path.join(dir, 'bench/dump.json'));
    await expectFailure(dir, ['compare', '-i', 'compare.json', '-o', 'out'], /bench\/dump\.json: not found/);
  });

  it('mapping yaml that is missing or not YAML', async () => {
    const dir = summaryCase('dmyaml');
    await expectFailure(dir, ['compare', '-i', 'compare.json', '-o', 'out', '-dm', 'none.yaml'], /none\.yaml: mapping file not found/);
    writeFileSync(path.join(dir, 'broken.yaml'), 'a: [1, 2\n');
    await expectFailure(dir, ['compare', '-i', 'compare.json', '-o', 'out', '-dm', 'broken.yaml'], /broken\.yaml: not valid YAML/);
  });

  it('mapping yaml with an unknown key or an index out of range', async () => {
    const dir = goldenCaseCopy('ms_pt_cross_am_yaml2', 'amyaml');
    if (!dir) return;
    writeFileSync(path.join(dir, 'bad.yaml'), '- ms_api: Mint.logical_or\n  pt_api: Tensor.__or__\n  ms_argz: [0]\n');
    await expectFailure(dir, ['-f', 'mindspore', 'compare', '-i', 'compare.json', '-o', 'out', '-am', 'bad.yaml'], /bad\.yaml: entry 1: unknown key 'ms_argz'/);
    writeFileSync(path.join(dir, 'range.yaml'), '- ms_api: Mint.logical_or\n  pt_api: Tensor.__or__\n  ms_args: [0, 7]\n  pt_args: [0, 1]\n');
    await expectFailure(dir, ['-f', 'mindspore', 'compare', '-i', 'compare.json', '-o', 'out', '-am', 'range.yaml'], /range\.yaml: ms_args index 7 is out of range/);
  });

  it('step directories with different rank counts', async () => {
    const dir = path.join(work, 'ranks');
    for (const [side, ranks] of [['npu', ['rank0', 'rank1']], ['bench', ['rank0']]] as const) {
      for (const r of ranks) {
        mkdirSync(path.join(dir, side, 'step0', r), { recursive: true });
        cpSync(path.join(fixtures, 'summary/npu/dump.json'), path.join(dir, side, 'step0', r, 'dump.json'));
      }
    }
    writeFileSync(path.join(dir, 'compare.json'), JSON.stringify({ npu_path: 'npu/step0', bench_path: 'bench/step0' }));
    await expectFailure(dir, ['compare', '-i', 'compare.json', '-o', 'out'], /bench\/step0: has 1 rank directories but .*npu\/step0 has 2/);
  });


  it('directories one level too high or too deep: what is wrong and what to pass instead', async () => {
    const dir = path.join(work, 'levels');
    for (const side of ['npu', 'bench']) {
      for (const step of ['step0', 'step1']) {
        for (const r of ['rank0', 'rank1']) {
          mkdirSync(path.join(dir, side, step, r), { recursive: true });
          cpSync(path.join(fixtures, 'summary/npu/dump.json'), path.join(dir, side, step, r, 'dump.json'));
          writeFileSync(path.join(dir, side, step, r, 'stack.json'), '{}');
        }
      }
    }
    mkdirSync(path.join(dir, 'odd/rank0'), { recursive: true });
    mkdirSync(path.join(dir, 'odd/notes'));
    const run = (npu: string, bench: string) => {
      writeFileSync(path.join(dir, 'compare.json'), JSON.stringify({ npu_path: npu, bench_path: bench }));
      return cli(['compare', '-i', 'compare.json', '-o', 'out'], dir);
    };
    // The run directory of step directories: name it and the step to pass (not "…/step0 must be a rank directory").
    const high = await run('npu', 'bench');
    expect(high.code).toBe(2);
    expect(high.err.trim().split('\n')).toHaveLength(1);
    expect(high.err).toMatch(/\/npu: holds "step0", "step1" where rank directories \(rank, rank0, rank1, …\) were expected: .*pass ".*\/npu\/step0"/);
    // A rank directory: name its dump.json (and stack.json for -s), not one of its files as a wrong rank.
    const deep = await run('npu/step0/rank0', 'bench/step0/rank0');
    expect(deep.code).toBe(2);
    expect(deep.err).toMatch(/\/npu\/step0\/rank0: is a rank directory \(it holds dump\.json\).*pass ".*\/npu\/step0\/rank0\/dump\.json".*"stack_path": ".*\/rank0\/stack\.json"/);
    expect(deep.err).not.toContain('construct.json');
    const odd = await run('odd', 'bench/step0');
    expect(odd.err).toMatch(/\/odd: holds "notes", which is not a rank directory/);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });
  it('a failure while the xlsx is being written removes it', async () => {
    const dir = goldenCaseCopy('ms_tensor', 'midway');
    if (!dir) return;
    const provider = async () => {
      throw new Error('disk on fire');
    };
    await expect(
      runCompareCommand(compareOptions(dir, { framework: 'mindspore', provider })),
    ).rejects.toThrow('disk on fire');
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('an interrupted run (Ctrl-C in the CLI) rejects at once and removes what it wrote', async () => {
    const dir = goldenCaseCopy('ms_tensor', 'interrupted');
    if (!dir) return;
    const controller = new AbortController();
    // The tensor metrics never come: the run waits there until it is interrupted.
    const provider = () => {
      setTimeout(() => controller.abort('SIGINT'), 10);
      return new Promise<never>(() => undefined);
    };
    const run = runCompareCommand(compareOptions(dir, { framework: 'mindspore', provider, signal: controller.signal }));
    await expect(run).rejects.toThrow(new RunInterrupted('SIGINT'));
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('a missing tensor file: the row says so, a warning names the file (the original continues too)', async () => {
    const dir = goldenCaseCopy('ms_tensor', 'nofile');
    if (!dir) return;
    const r = await cli(['-f', 'mindspore', 'compare', '-i', 'compare.json', '-o', 'out'], dir);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/warning: .*bench\/dump_tensor_data\/Tensor\.reshape\.0\.forward\.output\.0\.npy: not found/);
  });
});

describe('progress bar', () => {
  /** A terminal-like stream that keeps what is written. */
  function fakeTerminal(): { stream: NodeJS.WriteStream; text: () => string } {
    let text = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        text += String(chunk);
        done();
      },
    }) as unknown as NodeJS.WriteStream;
    Object.assign(stream, { isTTY: true, columns: 100 });
    return { stream, text: () => text };
  }

  it('shows phases once the run is past the delay, and clears itself', () => {
    const t = fakeTerminal();
    const bar = new CompareProgressBar(false, t.stream, -1);
    bar.update('read', 3e6, 10e6);
    expect(t.text()).toMatch(/compare \[.*\] 30% \| reading dump\.json 3\/10 MB/);
    // redraws are throttled; stopping draws the last state, then clears the line
    bar.update('rows', 500, 1000);
    bar.stop();
    expect(t.text()).toMatch(/50% \| writing rows 500\/1000/);
    expect(t.text()).toMatch(/\x1b\[2K$/);
  });

  it('stays silent with --quiet and for runs under the delay', () => {
    for (const [quiet, delay] of [[true, -1], [false, 60_000]] as const) {
      const t = fakeTerminal();
      const bar = new CompareProgressBar(quiet, t.stream, delay);
      bar.update('rows', 1, 2);
      bar.stop();
      expect(t.text()).toBe('');
    }
  });

  it('the compare command reports reading and rows to its listener', async () => {
    const dir = summaryCase('progress');
    const seen: Array<[string, number, number]> = [];
    await runCompareCommand(
      compareOptions(dir, { compareOnly: true, progress: (phase, done, total) => seen.push([phase, done, total]) }),
    );
    const read = seen.filter(([p]) => p === 'read');
    const rows = seen.filter(([p]) => p === 'rows');
    expect(read.at(-1)![1]).toBe(read.at(-1)![2]);
    expect(read.at(-1)![2]).toBeGreaterThan(0);
    expect(rows.at(-1)![1]).toBe(rows.at(-1)![2]);
  });
});

describe('worker-thread reading and the xlsx writer', () => {
  let script = '';
  beforeAll(async () => {
    script = await bundleCompareWorker(path.join(work, 'worker'));
  });

  it('reading in worker threads gives the same tables as reading here', async () => {
    const files: [string, string] = [path.join(fixtures, 'summary/npu/dump.json'), path.join(fixtures, 'summary/bench/dump.json')];
    const [npu, bench] = await readSides(files, true, script);
    for (const [side, file] of [[npu, files[0]], [bench, files[1]]] as const) {
      const here = readSide(file);
      expect(side.table.length).toBe(here.table.length);
      for (let i = 0; i < here.table.length; i++) {
        expect([side.table.name(i), side.table.dtype(i), side.table.shape(i), side.table.md5(i)]).toEqual([
          here.table.name(i),
          here.table.dtype(i),
          here.table.shape(i),
          here.table.md5(i),
        ]);
        for (let k = 0; k < 4; k++) expect(side.table.stat(i, k)).toEqual(here.table.stat(i, k));
      }
      expect([...side.top.keys()]).toEqual([...here.top.keys()]);
    }
    await expect(readSides([files[0], path.join(work, 'nope.json')], true, script)).rejects.toThrow(/nope\.json/);
  });

  it('tables written by two worker threads match the goldens (highlight, md5, stacks, ranks)', async () => {
    const shared = sharedDataDir();
    if (!shared) return;
    const runs: Array<[string, string[], 'pytorch' | 'mindspore']> = [
      ['pt_summary', [], 'pytorch'],
      ['pt_summary_hl', ['-hl'], 'pytorch'],
      ['pt_md5', [], 'pytorch'],
      ['pt_summary_newstack', [], 'pytorch'],
      ['pt_multirank_summary', [], 'pytorch'],
      ['ms_pt_cross_hl', ['-hl'], 'mindspore'],
    ];
    for (const [name, flags, framework] of runs) {
      const out = path.join(work, 'parallel', name);
      const advice: string[] = [];
      await runCompareCommand(
        compareOptions(path.join(shared, 'golden-compare', name), {
          outputPath: out,
          highlight: flags.includes('-hl'),
          framework,
          workerScript: script,
          parallelRows: 1,
          info: (l) => advice.push(l),
        }),
      );
      const goldenDir = path.join(shared, 'golden-compare', name, 'out');
      for (const g of readdirSync(goldenDir).filter((f) => f.endsWith('.cells.json'))) {
        const stem = g.replace(/_\d{14}\.cells\.json$/, '');
        const mine = readdirSync(out).find((f) => f.startsWith(stem) && f.endsWith('.xlsx'))!;
        const differences = bookDifferences(await readBook(path.join(out, mine)), JSON.parse(readFileSync(path.join(goldenDir, g), 'utf8')));
        expect(differences.slice(0, 5), `${name} ${g}`).toEqual([]);
      }
      for (const g of readdirSync(goldenDir).filter((f) => f.startsWith('advisor'))) {
        const mine = readdirSync(out).find((f) => f.startsWith(g.replace(/_\d{14}\.txt$/, '_')))!;
        expect(readFileSync(path.join(out, mine), 'utf8'), `${name} ${g}`).toBe(readFileSync(path.join(goldenDir, g), 'utf8'));
      }
    }
  });

  it('the zip container (fflate) is reproducible: the same table gives the same bytes', async () => {
    const write = async (file: string) => {
      const sink = await openXlsxSink(file, ['NPU Name', 'Value'], 3, 'default');
      for (let i = 0; i < 3; i++) await sink.write({ cells: [`row${i}`, i], state: 'input', apiKey: 'A', fill: null, npu: i, bench: i });
      await sink.close();
      return readFileSync(file);
    };
    const a = await write(path.join(work, 'same-a.xlsx'));
    const b = await write(path.join(work, 'same-b.xlsx'));
    expect(a.equals(b)).toBe(true);
    // DOS date 1980-01-01 00:00 in the first local header (offsets 10–13)
    expect(a.readUInt32LE(10)).toBe((1 << 21) | (1 << 16));
    expect(Object.values(await readBook(path.join(work, 'same-a.xlsx')))[0].map((r) => r[0].v)).toEqual(['NPU Name', 'row0', 'row1', 'row2']);
  });

  it('splits into equal part_N sheets past the row limit, every row kept in order', async () => {
    const file = path.join(work, 'split.xlsx');
    const header = ['NPU Name', 'Value'];
    const sink = await openXlsxSink(file, header, 7, 'default', 3);
    for (let i = 0; i < 7; i++) await sink.write({ cells: [`row${i}`, i + 0.5], state: 'input', apiKey: 'A', fill: null, npu: i, bench: i });
    await sink.close();
    const book = await readBook(file);
    expect(Object.keys(book)).toEqual(['part_0', 'part_1', 'part_2']);
    expect(Object.values(book).map((rows) => rows.length - 1)).toEqual([3, 2, 2]);
    const all = Object.values(book).flatMap((rows) => rows.slice(1));
    expect(all.map((r) => r[0].v)).toEqual(Array.from({ length: 7 }, (_, i) => `row${i}`));
    expect(all.map((r) => r[1].v)).toEqual(Array.from({ length: 7 }, (_, i) => i + 0.5));
  });
});
