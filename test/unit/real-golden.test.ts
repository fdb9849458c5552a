import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runGraphCommand } from '../../server/graph/runGraph.js';
import { runCompareCommand } from '../../server/compare/runCompare.js';
import { describeShared, sharedDataDir } from '../helpers/shared.js';
import { summaryLine } from '../../server/cli/graph.js';
import { TS_DATE, expectSameDb, firstDifference, readDb, tempDir, untimed } from './graphGolden.js';
import { bookDifferences, readBook, type GoldenBook } from './compare-table-helpers.js';

/**
 * Dumps written by msprobe's own collector from real PyTorch models (../shared/data/real, see its README) against the
 * original tool's outputs: `graph` in both formats (JSON byte for byte, db row by row) and `compare -s` cell by cell.
 */

const root = sharedDataDir() ? path.join(sharedDataDir()!, 'real') : '';
const CASES = ['dist2_gpt_mix_statistics', 'resnet18_mix_md5', 'resnet18_mix_statistics'];
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function graph(caseDir: string, format: 'vis' | 'db', input = path.join(caseDir, 'compare.json')) {
  const out = tempDir(`real-${format}`);
  dirs.push(out);
  return runGraphCommand({
    inputPath: input,
    outputPath: out,
    overflowCheck: false,
    fuzzyMatch: false,
    format,
    quiet: true,
    baseDir: caseDir,
    startedAt: TS_DATE,
  });
}

/** `compare_dump[_stepN].json` → the golden folder `compare[_stepN]`. */
function compareRuns(caseDir: string): Array<{ input: string; golden: string }> {
  return fs
    .readdirSync(caseDir)
    .filter((f) => /^compare_dump(_step\d+)?\.json$/.test(f))
    .sort()
    .map((input) => ({ input, golden: path.join(caseDir, 'golden', input.replace(/^compare_dump/, 'compare').replace(/\.json$/, '')) }));
}

const stem = (name: string) => name.replace(/_\d{14}/, '_TS').replace('.cells.json', '.xlsx');

describeShared('real dumps of msprobe\'s collector: graph and compare -s against the original', () => {
  it('finds the cases the data README promises', () => {
    expect(fs.readdirSync(root).filter((f) => !f.includes('.')).sort()).toEqual(CASES);
  });

  for (const name of CASES) {
    const caseDir = path.join(root, name);

    it(`${name}: graph --format vis is byte-identical to graph-vis-202507`, async () => {
      const summary = await graph(caseDir, 'vis');
      const goldenDir = path.join(caseDir, 'golden/graph-vis-202507');
      const golden = fs.readdirSync(goldenDir).sort();
      expect(summary.files.map(untimed).sort()).toEqual(golden.map(untimed).sort());
      for (const file of summary.files) {
        const g = golden.find((f) => untimed(f) === untimed(file))!;
        expect(firstDifference(fs.readFileSync(file, 'utf8'), fs.readFileSync(path.join(goldenDir, g), 'utf8')), untimed(file)).toBeNull();
      }
    });

    it(`${name}: graph --format db has the golden rows`, async () => {
      const summary = await graph(caseDir, 'db');
      const goldenDir = path.join(caseDir, 'golden/graph-db');
      const golden = fs.readdirSync(goldenDir).find((f) => f.endsWith('.vis.db'))!;
      expect(summary.files.map(untimed)).toEqual([untimed(golden)]);
      expectSameDb(readDb(summary.files[0]), readDb(path.join(goldenDir, golden)));
    });

    it(`${name}: a run compared with itself is reported as identical, in its task's terms`, async () => {
      const self = path.join(tempDir('real-self'), 'compare.json');
      dirs.push(path.dirname(self));
      fs.writeFileSync(self, JSON.stringify({ npu_path: path.join(caseDir, 'npu'), bench_path: path.join(caseDir, 'npu') }));
      const s = await graph(caseDir, 'db', self);
      expect(s.unmatched).toBe(0);
      const line = summaryLine(s);
      if (name.includes('md5')) expect(line).toContain(`; md5 identical on all ${s.indexed} compared nodes (precision index 1) → `);
      else if (s.differing === 0) expect(line).toContain(`; precision index 0 on all ${s.indexed} compared nodes: identical → `);
      // Statistics of -inf/NaN outputs (masked_fill) are a 1 even against themselves (msprobe-format.md §3.8).
      else expect(line).toMatch(/; precision index above 0 on \d+ of \d+ compared nodes, worst 1 at \S*masked_fill/);
      expect(line).not.toContain('none');
    });

    for (const run of fs.existsSync(caseDir) ? compareRuns(caseDir) : []) {
      it(`${name}: compare -s -i ${run.input} equals ${path.basename(run.golden)} cell by cell`, async () => {
        const out = tempDir('real-compare');
        dirs.push(out);
        await runCompareCommand({
          cwd: caseDir,
          inputPath: run.input,
          outputPath: out,
          stackMode: true,
          compareOnly: false,
          fuzzyMatch: false,
          highlight: false,
          diffAnalyze: false,
          csv: false,
          framework: 'pytorch',
          info: () => undefined,
          warn: () => undefined,
        });
        const ours = fs.readdirSync(out);
        const goldenFiles = fs.readdirSync(run.golden).filter((f) => !f.endsWith('.xlsx'));
        expect(ours.map(stem).sort()).toEqual(goldenFiles.map(stem).sort());
        for (const g of goldenFiles) {
          const mine = path.join(out, ours.find((o) => stem(o) === stem(g))!);
          if (g.endsWith('.cells.json')) {
            const book = JSON.parse(fs.readFileSync(path.join(run.golden, g), 'utf8')) as GoldenBook;
            expect(bookDifferences(await readBook(mine), book).slice(0, 20), g).toEqual([]);
          } else {
            expect(fs.readFileSync(mine, 'utf8'), g).toBe(fs.readFileSync(path.join(run.golden, g), 'utf8'));
          }
        }
      });
    }
  }
});
