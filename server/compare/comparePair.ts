import fs from 'node:fs';
import path from 'node:path';
import type { TensorMetricsProvider } from '../../src/core/compare/compareGraphs.js';
import { tableHeader, type TableMode } from '../../src/core/compareTable/columns.js';
import { npuCompareKeys, type KeyMappings } from '../../src/core/compareTable/compareKeys.js';
import { tableMode } from '../../src/core/compareTable/dumpMode.js';
import { DumpContentError } from '../../src/core/compareTable/dumpValidation.js';
import { dataMappingYaml } from '../../src/core/compareTable/layerDataMapping.js';
import { matchRows } from '../../src/core/compareTable/match.js';
import { StackTable } from '../../src/core/compareTable/stackTable.js';
import { DumpJsonScanner } from '../../src/core/compareTable/dumpJsonScanner.js';
import { streamTable } from '../../src/core/compareTable/tableStream.js';
import type { PyValue } from '../../src/core/formats/pyJson.js';
import type { OutputDir } from '../graph/outputFiles.js';
import { writeFileSynced, writingTo } from '../graph/outputFiles.js';
import { layerDataMapping, loadKeyMappings, type MappingFlags } from './mappingFiles.js';
import type { SideDump } from './readSide.js';
import { readSides, workerScript } from './sideReaders.js';
import { writeTableInParallel } from './parallelTable.js';
import type { AdvisorScan } from '../../src/core/compareTable/advisor.js';
import type { CompareProgress } from './compareProgress.js';
import { RealMetrics } from './realMetrics.js';
import { openCsvSink, openXlsxSink, type ResultSink } from './resultSinks.js';

/**
 * One compare of an NPU dump.json with a bench dump.json (msprobe-compare.md §1.4): read both sides, build the
 * compare keys, match, stream the table into the output file, write the advisor file. Files are reserved in the
 * run's OutputDir and only renamed into place when the whole run succeeds.
 */

export interface CompareFlags extends MappingFlags {
  fuzzyMatch: boolean;
  highlight: boolean;
  compareOnly: boolean;
  csv: boolean;
  framework: 'pytorch' | 'mindspore';
}

export interface PairJob {
  npuJson: string;
  benchJson: string;
  /** stack.json to show as NPU_Stack_Info, or null for no stack column. */
  stackJson: string | null;
  /** `_rank0` etc., or ''. */
  suffix: string;
}

export interface PairIo {
  out: OutputDir;
  /** Timestamp for the file names (`YYYYmmddHHMMSS`). */
  ts: string;
  info: (line: string) => void;
  warn: (line: string) => void;
  provider: TensorMetricsProvider;
  /** The bundled worker entry; default: found next to the bundle (none when running from sources). */
  workerScript?: string | null;
  /** Tables with at least this many rows are written by two threads (tests lower it). */
  parallelRows?: number;
  progress?: CompareProgress;
}

/** Below this many rows one thread writes the table (starting workers costs more than it saves). */
const PARALLEL_ROWS = 50_000;

export interface PairResult {
  mode: TableMode | null;
  rows: number;
  unmatched: number;
  /** Paths as they will be after commit. */
  files: string[];
  advice: string | null;
}

/** PROBEBOARD_TIMING=1: phase times on stderr (benchmarks). */
function timing(line: string): void {
  if (!process.env.PROBEBOARD_TIMING) return;
  const m = process.memoryUsage();
  const mb = (x: number) => (x / 1e6).toFixed(0);
  process.stderr.write(`[timing] ${line} (rss ${mb(m.rss)} heap ${mb(m.heapUsed)} buffers ${mb(m.arrayBuffers)} MB)\n`);
}

function jsonKind(file: string): 'dump.json' | 'debug.json' {
  const base = path.basename(file);
  if (base !== 'dump.json' && base !== 'debug.json') {
    throw new DumpContentError(file, 'the compare input must be a file named dump.json or debug.json');
  }
  return base;
}

/** stack.json streamed entry by entry into the NPU APIs' stacks (msprobe checks each one it uses). */
function readStacks(file: string, npu: SideDump): StackTable {
  const table = new StackTable(npu.table.apiKeys, file);
  const scanner = new DumpJsonScanner(
    file,
    {
      top() {},
      entry(key, text, parse) {
        table.addJson(key, text, () => {
          // Stacks are lists of strings: the native parser reads those the same, faster. Anything else (numbers,
          // objects) takes the Python-faithful parser, whose values the table's repr expects.
          try {
            const lines: unknown = JSON.parse(text);
            if (Array.isArray(lines) && lines.every((l) => typeof l === 'string')) return lines as PyValue;
          } catch {
            // malformed: parse() reports it with line and column
          }
          return parse();
        });
      },
    },
    true,
  );
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    throw new DumpContentError(file, `stack.json cannot be read (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  try {
    const buf = Buffer.allocUnsafe(4 << 20);
    for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf)) scanner.push(buf.subarray(0, n));
    scanner.end();
  } finally {
    fs.closeSync(fd);
  }
  return table;
}

function benchFramework(bench: SideDump): string | null {
  const f = bench.top.get('framework');
  return typeof f === 'string' ? f : bench.typeFramework;
}

/** Everything the table needs, built from one pair of dump files. */
export interface PreparedPair {
  mode: TableMode;
  kind: 'dump.json' | 'debug.json';
  npu: SideDump;
  bench: SideDump;
  stacks: StackTable | null;
  pairs: MatchedPair;
  unmatched: number;
  npuDataDir: string;
  benchDataDir: string;
  files: string[];
}

type MatchedPair = ReturnType<typeof matchRows>;

/** Reads both sides, loads the mappings (writing `-lm`'s data_mapping yaml), and matches the rows. */
export async function preparePair(job: PairJob, flags: CompareFlags, io: PairIo): Promise<PreparedPair> {
  const kind = jsonKind(job.npuJson);
  if (jsonKind(job.benchJson) !== kind) {
    throw new DumpContentError(job.benchJson, `must be a ${kind} like the NPU side (${job.npuJson})`);
  }
  const t0 = performance.now();
  const [npu, bench] = await readSides(
    [job.npuJson, job.benchJson],
    kind === 'dump.json',
    io.workerScript === undefined ? workerScript() : io.workerScript,
    io.progress && ((done, total) => io.progress!('read', done, total)),
  );
  timing(`read both sides ${(performance.now() - t0).toFixed(0)} ms, ${npu.table.length}+${bench.table.length} rows`);
  const mode = tableMode(npu, bench);
  const npuDataDir = path.join(path.dirname(job.npuJson), 'dump_tensor_data');
  const benchDataDir = path.join(path.dirname(job.benchJson), 'dump_tensor_data');
  const stacks = job.stackJson ? readStacks(job.stackJson, npu) : null;
  const mindspore = flags.framework === 'mindspore';
  const crossFramework = mindspore && benchFramework(bench) === 'pytorch';

  const loaded = loadKeyMappings(
    { ...flags, apiMapping: mindspore ? flags.apiMapping : undefined, cellMapping: mindspore ? flags.cellMapping : undefined },
    io.warn,
  );
  const mappings: KeyMappings = { api: loaded.api, cell: loaded.cell, data: loaded.data };
  const files: string[] = [];
  if (mindspore && flags.layerMapping) {
    // -lm replaces -dm (msprobe overwrites data_mapping with the generated one).
    const lm = layerDataMapping(job.npuJson, job.benchJson, typeof flags.layerMapping === 'string' ? flags.layerMapping : null);
    if (lm.warning) io.warn(lm.warning);
    mappings.data = lm.mapping;
    const yamlName = `data_mapping${job.suffix}_${io.ts}.yaml`;
    const yamlPath = io.out.reserve(yamlName);
    await writingTo(io.out.finalPath(yamlName), () => writeFileSynced(yamlPath, (write) => write(dataMappingYaml(lm.mapping))));
    files.push(io.out.finalPaths[io.out.finalPaths.length - 1]);
  }

  const keys = npuCompareKeys(npu.table, bench.table, mappings);
  const pairs = matchRows(npu.table, bench.table, {
    kind: flags.fuzzyMatch ? 'fuzzy' : mappings.data ? 'dataMapping' : 'exact',
    npuKeys: keys,
    crossFramework,
  });
  let unmatched = 0;
  for (let k = 0; k < pairs.length; k++) if (pairs.bench[k] < 0) unmatched++;
  timing(`matched ${(performance.now() - t0).toFixed(0)} ms`);
  return { mode, kind, npu, bench, stacks, pairs, unmatched, npuDataDir, benchDataDir, files };
}

export async function comparePair(job: PairJob, flags: CompareFlags, io: PairIo): Promise<PairResult> {
  const p = await preparePair(job, flags, io);
  const { mode, kind, npu, bench, stacks, pairs, unmatched, npuDataDir, benchDataDir, files } = p;
  if (mode === 'all') {
    for (const dir of [npuDataDir, benchDataDir]) {
      if (!fs.existsSync(dir)) throw new DumpContentError(dir, 'the dump_tensor_data directory of a tensor dump is missing');
    }
  }
  if (pairs.length === 0) {
    io.warn(`${job.npuJson}: Can\`t match any op. No compare result file generated.`);
    return { mode, rows: 0, unmatched: 0, files, advice: null };
  }

  const header = tableHeader(mode, stacks !== null);
  const prefix = kind === 'debug.json' ? 'debug_compare_result' : 'compare_result';
  const resultName = `${prefix}${job.suffix}_${io.ts}.${flags.csv ? 'csv' : 'xlsx'}`;
  const resultTemp = io.out.reserve(resultName);
  files.push(io.out.finalPaths[io.out.finalPaths.length - 1]);
  // Highlight rules apply to dump.json only; debug.json still goes through the -hl writer.
  const highlight = flags.highlight && kind === 'dump.json';
  const style = flags.highlight ? 'highlight' : 'default';
  const t1 = performance.now();
  const onProgress = io.progress && ((done: number, total: number) => io.progress!('rows', done, total));
  const script = io.workerScript === undefined ? workerScript() : io.workerScript;
  const advisor = await writingTo(io.out.finalPath(resultName), async (): Promise<AdvisorScan> => {
    if (mode !== 'all' && !flags.csv && script && pairs.length >= (io.parallelRows ?? PARALLEL_ROWS)) {
      return await writeTableInParallel({
        file: resultTemp,
        header,
        pairs,
        npu: npu.table,
        bench: bench.table,
        stacks,
        mode,
        highlight,
        fuzzy: flags.fuzzyMatch,
        style,
        script,
        onProgress,
      });
    } else {
      const sink: ResultSink = flags.csv
        ? openCsvSink(resultTemp, header)
        : await openXlsxSink(resultTemp, header, pairs.length, style);
      const real =
        mode === 'all' ? new RealMetrics({ npuDataDir, benchDataDir, provider: io.provider, warn: io.warn }) : null;
      try {
        const scan = await streamTable({
          ctx: { mode, npu: npu.table, bench: bench.table, stacks, fuzzy: flags.fuzzyMatch },
          header,
          pairs,
          highlight,
          realCells: real ? (n, b) => real.cells(npu.table, bench.table, n, b) : undefined,
          sink: (row) => sink.write(row),
          onProgress,
        });
        await sink.close();
        return scan;
      } catch (e) {
        sink.abandon();
        throw e;
      }
    }
  });
  timing(`table written ${(performance.now() - t1).toFixed(0)} ms`);
  io.info(`Compare result (${pairs.length} rows, ${mode} mode) → ${files[files.length - 1]}`);

  let advice: string | null = null;
  if (!flags.compareOnly) {
    advice = advisor.text();
    const advisorName = `advisor${job.suffix}_${io.ts}.txt`;
    const advisorTemp = io.out.reserve(advisorName);
    await writingTo(io.out.finalPath(advisorName), () => writeFileSynced(advisorTemp, (write) => write(advice!)));
    files.push(io.out.finalPaths[io.out.finalPaths.length - 1]);
    for (const line of advice.trimEnd().split('\n')) io.info(line);
  }
  return { mode, rows: pairs.length, unmatched, files, advice };
}
