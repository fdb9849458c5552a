import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCompareCommand, type CompareCommandOptions } from '../../server/compare/runCompare.js';
import { describeShared, sharedDataDir } from '../helpers/shared.js';
import { bookDifferences, readBook, type GoldenBook, type GoldenCell } from './compare-table-helpers.js';

/**
 * `probeboard compare` against the original tool's output (../shared/data/golden-compare): every case and command
 * of its NOTE.md is run, the xlsx read back with exceljs and compared cell by cell with `*.cells.json` (value, type,
 * fill; EucDist within 1e-12 relative), and the advisor / data_mapping / first-diff files compared byte for byte.
 * Three cases record crashes of the original; for them the documented behaviour is checked instead.
 */

const root = sharedDataDir() ? path.join(sharedDataDir()!, 'golden-compare') : '';
const work = mkdtempSync(path.join(os.tmpdir(), 'pb-compare-golden-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  caseName: string;
  framework: 'pytorch' | 'mindspore';
  out: string;
  flags: string[];
}

/** The `msprobe -f … compare -i compare.json -o OUT …` lines of a case's NOTE.md. */
function runsOf(caseName: string): Run[] {
  const note = readFileSync(path.join(root, caseName, 'NOTE.md'), 'utf8');
  const runs: Run[] = [];
  for (const line of note.split('\n')) {
    const m = /^\s+msprobe -f (\w+) compare -i compare.json -o (\S+)(.*)$/.exec(line);
    if (m) runs.push({ caseName, framework: m[1] as Run['framework'], out: m[2], flags: m[3].trim().split(/\s+/).filter(Boolean) });
  }
  return runs;
}

function flagValue(flags: string[], name: string): string | true | undefined {
  const i = flags.indexOf(name);
  if (i < 0) return undefined;
  const next = flags[i + 1];
  return next && !next.startsWith('-') ? next : true;
}

async function run(r: Run): Promise<{ dir: string; warnings: string[] }> {
  const dir = path.join(work, r.caseName, r.out);
  const warnings: string[] = [];
  const options: CompareCommandOptions = {
    cwd: path.join(root, r.caseName),
    inputPath: 'compare.json',
    outputPath: dir,
    stackMode: r.flags.includes('-s'),
    compareOnly: r.flags.includes('-c'),
    fuzzyMatch: r.flags.includes('-f'),
    highlight: r.flags.includes('-hl'),
    diffAnalyze: r.flags.includes('-da'),
    csv: false,
    framework: r.framework,
    apiMapping: flagValue(r.flags, '-am'),
    cellMapping: flagValue(r.flags, '-cm'),
    dataMapping: flagValue(r.flags, '-dm') as string | undefined,
    layerMapping: flagValue(r.flags, '-lm'),
    info: () => undefined,
    warn: (line) => warnings.push(line),
  };
  await runCompareCommand(options);
  return { dir, warnings };
}

/** File name with its timestamp(s) replaced, to pair ours with the golden one. */
function stem(name: string): string {
  return name.replace(/diff_analyze_\d+/, 'diff_analyze_NS').replace(/_\d{14}/, '_TS').replace('.cells.json', '.xlsx');
}

const CRASH_CASES = new Set(['pt_summary_fuzzy', 'ms_pt_cross_fuzzy', 'ms_pt_cross_am_yaml']);

describeShared('compare: golden cases of the original tool', () => {
  const cases = root ? readdirSync(root).filter((c) => !c.includes('.')).sort() : [];
  it('has the 24 cases', () => expect(cases.length).toBe(24));

  for (const caseName of cases.filter((c) => !CRASH_CASES.has(c))) {
    for (const r of runsOf(caseName)) {
      it(`${caseName} ${r.out} ${r.flags.join(' ')}`.trim(), async () => {
        const { dir } = await run(r);
        const ours = readdirSync(dir);
        const goldenDir = path.join(root, caseName, r.out);
        const goldenFiles = readdirSync(goldenDir).filter((f) => f !== 'run.log' && !f.endsWith('.xlsx'));
        expect(goldenFiles.length).toBeGreaterThan(0);
        for (const g of goldenFiles) {
          const mine = ours.find((o) => stem(o) === stem(g));
          expect(mine, `${g} has a counterpart`).toBeDefined();
          if (g.endsWith('.cells.json')) {
            const golden = JSON.parse(readFileSync(path.join(goldenDir, g), 'utf8')) as GoldenBook;
            const differences = bookDifferences(await readBook(path.join(dir, mine!)), golden);
            expect(differences.slice(0, 20)).toEqual([]);
          } else {
            expect(readFileSync(path.join(dir, mine!), 'utf8'), g).toBe(readFileSync(path.join(goldenDir, g), 'utf8'));
          }
        }
        // Nothing else (no leftovers from the temporary-file protocol).
        const expected = new Set(goldenFiles.map(stem));
        expect(ours.filter((o) => !expected.has(stem(o)))).toEqual([]);
      });
    }
  }

  // Where the original crashes, the documentation's promise is checked instead.
  it('pt_summary_fuzzy -f: statistics mode matches call-count-shifted APIs and notes it', async () => {
    const { dir } = await run({ caseName: 'pt_summary_fuzzy', framework: 'pytorch', out: 'out', flags: ['-f'] });
    const xlsx = readdirSync(dir).find((f) => f.endsWith('.xlsx'))!;
    const rows = (await readBook(path.join(dir, xlsx))).Sheet1;
    const header = rows[0].map((c) => c.v);
    const col = (name: string) => header.indexOf(name);
    const relu = rows.filter((r) => String(r[0].v).startsWith('Functional.relu.1.forward'));
    expect(relu.length).toBe(2);
    for (const r of relu) {
      expect(String(r[col('Bench Name')].v)).toBe(String(r[0].v).replace('relu.1', 'relu.0'));
      expect(String(r[col('Err_message')].v)).toContain('Fuzzy matching data, the comparison accuracy may be affected.');
    }
    // every NPU row of the exact run is still there, in the same order
    const exact = JSON.parse(readFileSync(path.join(root, 'pt_summary/out', readdirSync(path.join(root, 'pt_summary/out')).find((f) => f.endsWith('.cells.json'))!), 'utf8')) as GoldenBook;
    expect(rows.map((r) => r[0].v)).toEqual(exact.Sheet1.map((r) => r[0].v));
  });

  it('ms_pt_cross_fuzzy -f: runs in statistics mode (the original crashes)', async () => {
    const { dir } = await run({ caseName: 'ms_pt_cross_fuzzy', framework: 'mindspore', out: 'out', flags: ['-f'] });
    const xlsx = readdirSync(dir).find((f) => f.endsWith('.xlsx'))!;
    const rows = (await readBook(path.join(dir, xlsx))).Sheet1;
    const plain = JSON.parse(readFileSync(path.join(root, 'ms_pt_cross/out', readdirSync(path.join(root, 'ms_pt_cross/out')).find((f) => f.endsWith('.cells.json'))!), 'utf8')) as GoldenBook;
    expect(rows.map((r) => r[0].v)).toEqual(plain.Sheet1.map((r) => r[0].v));
  });

  it('ms_pt_cross_am_yaml: the documented ms_outputs/pt_outputs keys work like the keys the code reads', async () => {
    const { dir } = await run({ caseName: 'ms_pt_cross_am_yaml', framework: 'mindspore', out: 'out', flags: ['-am', 'api_mapping.yaml'] });
    const xlsx = readdirSync(dir).find((f) => f.endsWith('.xlsx'))!;
    const ours = (await readBook(path.join(dir, xlsx))).Sheet1;
    const golden2Dir = path.join(root, 'ms_pt_cross_am_yaml2/out');
    const golden2 = JSON.parse(readFileSync(path.join(golden2Dir, readdirSync(golden2Dir).find((f) => f.endsWith('.cells.json'))!), 'utf8')) as GoldenBook;
    expect(ours.length).toBe(golden2.Sheet1.length);
    const pairs = (rows: GoldenCell[][]) => new Map(rows.map((r) => [String(r[0].v), String(r[1].v)]));
    const a = pairs(ours);
    const b = pairs(golden2.Sheet1);
    // The two yamls differ only in logical_or's argument order and flash_attention_score's 4th argument.
    const differing = [...a.keys()].filter((k) => a.get(k) !== b.get(k));
    expect(differing.sort()).toEqual(
      ['Functional.flash_attention_score.0.forward.input.3', 'Mint.logical_or.0.forward.input.0', 'Mint.logical_or.0.forward.input.1'].sort(),
    );
    expect(a.get('Mint.logical_or.0.forward.input.0')).toBe('Tensor.__or__.0.forward.input.0');
    expect(a.get('Mint.logical_or.0.forward.output.0')).toBe('Tensor.__or__.0.forward.output.0');
    expect(a.get('Functional.flash_attention_score.0.forward.output.0')).toBe(b.get('Functional.flash_attention_score.0.forward.output.0'));
  });
});
