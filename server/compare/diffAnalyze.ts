import path from 'node:path';
import { tableHeader } from '../../src/core/compareTable/columns.js';
import { checkApi, checksJson, type ApiCheck } from '../../src/core/compareTable/diffCheck.js';
import { firstDiffNodes } from '../../src/core/compareTable/firstDiff.js';
import { ApiBatcher, type TableRow } from '../../src/core/compareTable/highlight.js';
import { streamTable } from '../../src/core/compareTable/tableStream.js';
import { writePyJson } from '../../src/core/formats/pyJsonWrite.js';
import { writeFileSynced, writingTo } from '../graph/outputFiles.js';
import { preparePair, type CompareFlags, type PairIo } from './comparePair.js';
import { isFile, rankPairs } from './rankDirs.js';

/**
 * `-da` (msprobe-compare.md §8): per rank, the statistics table grouped per API into
 * `compare_result_rank{n}_{ts}.json`; then the first differing node across ranks into `diff_analyze_{ns}.json`.
 */

export async function runDiffAnalyze(npuStep: string, benchStep: string, flags: CompareFlags, io: PairIo): Promise<void> {
  const ranks = new Map<number, Map<string, ApiCheck>>();
  for (const pair of rankPairs(npuStep, benchStep)) {
    const npuJson = path.join(pair.npuDir, 'dump.json');
    const benchJson = path.join(pair.benchDir, 'dump.json');
    if (!isFile(npuJson) || !isFile(benchJson)) continue;
    const stack = path.join(pair.npuDir, 'stack.json');
    const p = await preparePair({ npuJson, benchJson, stackJson: isFile(stack) ? stack : null, suffix: pair.suffix }, flags, io);
    // Tensor dumps are analysed on their statistics, as msprobe's first-diff mode does.
    const mode = p.mode === 'md5' ? 'md5' : 'summary';
    const header = tableHeader(mode, p.stacks !== null);
    const checks = new Map<string, ApiCheck>();
    const batcher = new ApiBatcher();
    const take = (rows: TableRow[] | null) => {
      if (rows) checks.set(rows[0].apiKey, checkApi(rows, header, mode, p.npu.table, p.bench.table, p.stacks));
    };
    await streamTable({
      ctx: { mode, npu: p.npu.table, bench: p.bench.table, stacks: p.stacks, fuzzy: flags.fuzzyMatch },
      header,
      pairs: p.pairs,
      highlight: false,
      sink: (row) => take(batcher.push(row)),
    });
    take(batcher.flush());
    const name = `compare_result${pair.suffix}_${io.ts}.json`;
    const file = io.out.reserve(name);
    await writingTo(io.out.finalPath(name), () => writeFileSynced(file, (write) => writePyJson(checksJson(checks), 4, write)));
    const rank = pair.suffix.replace(/^_rank/, '');
    ranks.set(rank === '' ? 0 : Number(rank), checks);
  }
  const result = firstDiffNodes(ranks);
  if (!result) {
    io.info('Cannot find any diff node, no need to generate analyze file.');
    return;
  }
  const name = `diff_analyze_${BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n)}.json`;
  const file = io.out.reserve(name);
  await writingTo(io.out.finalPath(name), () => writeFileSynced(file, (write) => writePyJson(result, 2, write)));
  io.info(`The analyze result is saved in: ${io.out.finalPaths[io.out.finalPaths.length - 1]}`);
}
