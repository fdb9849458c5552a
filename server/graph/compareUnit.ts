import { buildGraph, type DumpDirContents } from '../../src/core/build/buildGraph.js';
import { pagingByMicroStep } from '../../src/core/build/microSteps.js';
import { compareGraphsAsync, type TensorMetricsProvider } from '../../src/core/compare/compareGraphs.js';
import {
  CROSS_FRAMEWORK_MESSAGE,
  detectDumpMode,
  dumpModeOf,
  DumpModeError,
  dumpTaskOfRead,
  isCrossFramework,
  type DumpMode,
  type DumpTask,
  type Framework,
} from '../../src/core/compare/mode.js';
import type { OverflowLevel } from '../../src/core/compare/overflow.js';
import { MAX_COMPARE_COLUMNS } from '../../src/core/compare/rows.js';
import { dumpTopAsPy } from '../../src/core/formats/dumpJson.js';
import type { PyValue } from '../../src/core/formats/pyJson.js';
import type { JsonTree } from '../../src/core/formats/pyJsonWrite.js';
import { classifyNodeOp } from '../../src/core/build/nodeOp.js';
import { NodeOp, type Graph } from '../../src/core/model/graph.js';
import { yieldToEvents } from '../interrupt.js';
import { GraphFileError } from '../store/graphStore.js';
import type { DumpUnit } from './dumpLayout.js';
import type { GraphSink } from './graphSinks.js';
import { applyOverflowLevels, dumpOverflowLevels } from './overflowLevels.js';
import { readDumpDir, readDumpDirForBuild, releaseFileBuffer, type DumpDirRead } from './readDumpDir.js';
import type { StepContext, UnitResult } from './runStep.js';
import type { GraphRunSummary } from './runSummary.js';

/**
 * One rank of a compare run, in msprobe's order (msprobe-format.md §2.2, §3): read both dumps, check modes and
 * frameworks, build both graphs, compare, number micro steps, overflow levels (cross-rank matching and export:
 * runStep). To keep one dump in memory at a time, each side is read and built before the other is read, and what
 * the checks need is taken from its dump first; problems are reported in msprobe's order all the same (a side's
 * build error waits until both sides passed the checks). `-lm` reads both dumps whole, so it reads both first.
 */

export interface CompareSettings {
  compareFile: string;
  /** `-lm`: true alone, the YAML text when a file was given, false without. */
  layerMapping: { yamlText: string | null } | null;
  fuzzyMatch: boolean;
  overflowCheck: boolean;
  /** Real-tensor metrics (worker pool); created on first use. */
  tensorMetrics: () => TensorMetricsProvider;
}

/** One side, read and built; the checks' answers (or their errors, raised later in msprobe's order). */
interface Side {
  dumpFile: string;
  task: DumpTask | DumpModeError;
  framework: Framework | DumpModeError;
  levels: Map<string, OverflowLevel> | null;
  graph: Graph | null;
  buildError?: unknown;
}

/** A compare run's rank: both dumps read, checked and built, then compared; micro steps and `-oc` levels. */
export async function compareUnit(unit: DumpUnit, settings: CompareSettings, ctx: StepContext): Promise<UnitResult> {
  if (settings.layerMapping) return compareUnitWithMapping(unit, settings, ctx);
  const npu = readSide(unit.npuDir, 'npu', unit, settings, ctx);
  // A Ctrl-C while the NPU side was read is acted on before the Bench side is.
  await yieldToEvents();
  const bench = readSide(unit.benchDir!, 'bench', unit, settings, ctx);
  // Reading leaves little for a full collection to find: dump.json never became one string or one parse tree, and
  // the read buffer goes now. (Runs of many units collect between units: runStep.ts.)
  releaseFileBuffer();
  const mode = checkSides(npu, bench, settings);
  for (const side of [npu, bench]) if (side.buildError !== undefined) throw side.buildError;
  return compareSides(npu.graph!, bench.graph!, mode, npu.levels, bench.levels, null, settings, ctx);
}

/**
 * A rank another shard compares (issue 19): what cross-rank matching (msprobe-format.md §2.12) reads of it, the
 * precision index or `-oc` level of its `Distributed.*` nodes, the way `compareUnit` gives them, without its graphs.
 * Both sides' node trees come from construct.json (a match needs the same ancestors, §3.2) but only `Distributed.*`
 * entries are read from dump.json, fuzzy matching adding the modules (it pairs an API only under a matched module
 * with the same shapes), and no stack.json. Not for `-lm`, whose name map needs both dumps whole.
 */
export async function comparePeerUnit(unit: DumpUnit, settings: CompareSettings, ctx: StepContext): Promise<{ npu: Graph; bench: Graph }> {
  const only = settings.fuzzyMatch ? isDistributedOrModule : isDistributed;
  // The peer's own warnings are its shard's to report.
  const quiet: StepContext = { ...ctx, summary: { ...ctx.summary, warnings: [] } };
  const npu = readSide(unit.npuDir, 'npu', unit, settings, quiet, only);
  await yieldToEvents();
  const bench = readSide(unit.benchDir!, 'bench', unit, settings, quiet, only);
  releaseFileBuffer();
  const mode = checkSides(npu, bench, settings);
  for (const side of [npu, bench]) if (side.buildError !== undefined) throw side.buildError;
  const r = await compareSides(npu.graph!, bench.graph!, mode, npu.levels, bench.levels, null, settings, quiet);
  return { npu: r.npu, bench: r.bench! };
}

const isDistributed = (name: string): boolean => name.startsWith('Distributed');
const isDistributedOrModule = (name: string): boolean => isDistributed(name) || classifyNodeOp(name).op !== NodeOp.functionApi;

function readSide(
  dir: string,
  which: 'npu' | 'bench',
  unit: DumpUnit,
  settings: CompareSettings,
  ctx: StepContext,
  only?: (name: string) => boolean,
): Side {
  // NPU items get the compare columns: room for them is left as they are made.
  const src = readDumpDirForBuild(dir, {
    overflowLevels: settings.overflowCheck,
    itemRoom: which === 'npu' ? MAX_COMPARE_COLUMNS : 0,
    only,
    skipStack: only !== undefined,
  });
  const side: Side = {
    dumpFile: src.dumpFile,
    task: deferred(() => dumpTaskOfRead(src.head.top, src.head.data, src.md5, which, src.dumpFile)),
    framework: src.framework,
    levels: src.levels,
    graph: null,
  };
  try {
    side.graph = buildSide(src, unit, ctx.sink, ctx.summary);
  } catch (e) {
    side.buildError = e;
  }
  return side;
}

function deferred<T>(check: () => T): T | DumpModeError {
  try {
    return check();
  } catch (e) {
    if (e instanceof DumpModeError) return e;
    throw e;
  }
}

/** Mode and framework checks of both sides (msprobe's order of messages); the mode. */
function checkSides(npu: Side, bench: Side, settings: CompareSettings): DumpMode {
  const files = { npu: npu.dumpFile, bench: bench.dumpFile };
  try {
    const take = <T>(v: T | DumpModeError): T => {
      if (v instanceof DumpModeError) throw v;
      return v;
    };
    const npuTask = take(npu.task);
    const mode = dumpModeOf(npuTask, take(bench.task), files);
    if (take(npu.framework) !== take(bench.framework) && !settings.layerMapping) {
      throw new GraphFileError(settings.compareFile, CROSS_FRAMEWORK_MESSAGE);
    }
    return mode;
  } catch (e) {
    throw e instanceof DumpModeError ? new GraphFileError(e.file, e.problem) : e;
  }
}

/** `-lm` needs both dumps, construct and stack files whole: both sides are read before either is built. */
async function compareUnitWithMapping(unit: DumpUnit, settings: CompareSettings, ctx: StepContext): Promise<UnitResult> {
  const { sink, summary } = ctx;
  const npuSrc = readDumpDir(unit.npuDir, { keepDumpText: true });
  const benchSrc = readDumpDir(unit.benchDir!, { keepDumpText: true });
  const files = { npu: npuSrc.dumpFile, bench: benchSrc.dumpFile };
  let mode;
  try {
    mode = detectDumpMode(npuSrc.dump.top, benchSrc.dump.top, files);
    const texts = { npu: npuSrc.dumpText, bench: benchSrc.dumpText };
    if (isCrossFramework(npuSrc.dump.top, benchSrc.dump.top, files, texts) && !settings.layerMapping) {
      throw new GraphFileError(settings.compareFile, CROSS_FRAMEWORK_MESSAGE);
    }
  } catch (e) {
    throw e instanceof DumpModeError ? new GraphFileError(e.file, e.problem) : e;
  }
  const layerMapping = await layerMap(npuSrc, benchSrc, settings.layerMapping!.yamlText, summary);
  const levels = settings.overflowCheck
    ? { npu: dumpOverflowLevels(npuSrc.dump.data), bench: dumpOverflowLevels(benchSrc.dump.data) }
    : null;
  npuSrc.dumpText = benchSrc.dumpText = undefined;
  releaseFileBuffer();
  const npu = buildSide(npuSrc, unit, sink, summary);
  const bench = buildSide(benchSrc, unit, sink, summary);
  return compareSides(npu, bench, mode, levels?.npu ?? null, levels?.bench ?? null, layerMapping, settings, ctx);
}

async function compareSides(
  npu: Graph,
  bench: Graph,
  mode: DumpMode,
  npuLevels: Map<string, OverflowLevel> | null,
  benchLevels: Map<string, OverflowLevel> | null,
  layerMapping: Map<string, string> | null,
  settings: CompareSettings,
  ctx: StepContext,
): Promise<UnitResult> {
  const outcome = await compareGraphsAsync(npu, bench, {
    mode,
    fuzzy: settings.fuzzyMatch,
    layerMapping,
    // The levels were taken from the dumps above; the comparison need not read them.
    overflowCheck: false,
    tensorMetrics: mode === 'all' ? settings.tensorMetrics() : undefined,
  });
  const microSteps = pagingByMicroStep(npu, bench, ctx.sink.era);
  if (npuLevels) applyOverflowLevels(npu, npuLevels);
  if (benchLevels) applyOverflowLevels(bench, benchLevels);
  return {
    npu,
    bench,
    microSteps,
    task: outcome.task,
    toolTip: outcome.toolTip,
    colors: outcome.colors as unknown as JsonTree,
  };
}

/** Builds one side; afterwards nothing holds on to the dump. */
function buildSide(src: DumpDirContents, unit: DumpUnit, sink: GraphSink, summary: GraphRunSummary): Graph {
  const { graph, warnings } = buildGraph(src, { era: sink.era, step: unit.step, rank: unit.rank });
  summary.warnings.push(...warnings);
  src.dump.data.clear();
  src.stack = new Map();
  return graph;
}

/**
 * `-lm` (§3.2 c): NPU → Bench dump names; a bad YAML only warns, as in msprobe. Loaded when asked for: the YAML
 * parser it needs is a sixth of the start-up of every other run.
 */
async function layerMap(npu: DumpDirRead, bench: DumpDirRead, yamlText: string | null, summary: GraphRunSummary): Promise<Map<string, string>> {
  const { buildLayerMapping } = await import('../../src/core/compare/layerMapping.js');
  const side = (s: DumpDirRead) => ({
    dump: dumpTopAsPy(s.dump),
    construct: s.construct.parents,
    // Read-only use: the parsed stack.json (names → lines) is what msprobe's old format looks like.
    stack: s.stack as Map<string, PyValue>,
    file: s.dumpFile,
    rawDumpText: s.dumpText,
  });
  const result = buildLayerMapping(side(npu), side(bench), yamlText);
  if (result.warning) summary.warnings.push(result.warning);
  return result.mapping;
}
