import { buildGraph } from '../../src/core/build/buildGraph.js';
import { pagingByMicroStep } from '../../src/core/build/microSteps.js';
import { compareGraphsAsync, type TensorMetricsProvider } from '../../src/core/compare/compareGraphs.js';
import { buildLayerMapping } from '../../src/core/compare/layerMapping.js';
import { CROSS_FRAMEWORK_MESSAGE, detectDumpMode, DumpModeError, isCrossFramework } from '../../src/core/compare/mode.js';
import type { PyValue } from '../../src/core/formats/pyJson.js';
import type { JsonTree } from '../../src/core/formats/pyJsonWrite.js';
import type { Graph } from '../../src/core/model/graph.js';
import { GraphFileError } from '../store/graphStore.js';
import type { DumpUnit } from './dumpLayout.js';
import type { GraphSink } from './graphSinks.js';
import { applyOverflowLevels, dumpOverflowLevels } from './overflowLevels.js';
import { readDumpDir, type DumpDirRead } from './readDumpDir.js';
import type { StepContext, UnitResult } from './runStep.js';
import type { GraphRunSummary } from './runSummary.js';

/**
 * One rank of a compare run, in msprobe's order (msprobe-format.md §2.2, §3): build both graphs, check the
 * frameworks, compare, number micro steps, overflow levels (cross-rank matching and export: runStep).
 * Everything that reads dump.json itself (mode, frameworks, layer mapping, overflow) runs before the build, which
 * reuses the dump's descriptors as node items.
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

/** A compare run's rank: both dumps read, checked and built, then compared; micro steps and `-oc` levels. */
export async function compareUnit(unit: DumpUnit, settings: CompareSettings, ctx: StepContext): Promise<UnitResult> {
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
  const layerMapping = settings.layerMapping ? layerMap(npuSrc, benchSrc, settings.layerMapping.yamlText, summary) : null;
  const levels = settings.overflowCheck
    ? { npu: dumpOverflowLevels(npuSrc.dump.data), bench: dumpOverflowLevels(benchSrc.dump.data) }
    : null;
  npuSrc.dumpText = benchSrc.dumpText = undefined;

  const npu = buildSide(npuSrc, unit, sink, summary);
  const bench = buildSide(benchSrc, unit, sink, summary);
  const outcome = await compareGraphsAsync(npu, bench, {
    mode,
    fuzzy: settings.fuzzyMatch,
    layerMapping,
    // The levels were taken from the dumps above; the comparison need not read them.
    overflowCheck: false,
    tensorMetrics: mode === 'all' ? settings.tensorMetrics() : undefined,
  });
  const microSteps = pagingByMicroStep(npu, bench, sink.era);
  if (levels) {
    applyOverflowLevels(npu, levels.npu);
    applyOverflowLevels(bench, levels.bench);
  }
  return {
    npu,
    bench,
    microSteps,
    task: outcome.task,
    toolTip: outcome.toolTip,
    colors: outcome.colors as unknown as JsonTree,
  };
}

/** Builds one side; afterwards only the graph holds on to the dump (its descriptors are the items). */
function buildSide(src: DumpDirRead, unit: DumpUnit, sink: GraphSink, summary: GraphRunSummary): Graph {
  const { graph, warnings } = buildGraph(src, { era: sink.era, step: unit.step, rank: unit.rank });
  summary.warnings.push(...warnings);
  src.dump.data.clear();
  src.dump.top.clear();
  return graph;
}

/** `-lm` (§3.2 c): NPU → Bench dump names; a bad YAML only warns, as in msprobe. */
function layerMap(npu: DumpDirRead, bench: DumpDirRead, yamlText: string | null, summary: GraphRunSummary): Map<string, string> {
  const side = (s: DumpDirRead) => ({
    dump: s.dump.top,
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
