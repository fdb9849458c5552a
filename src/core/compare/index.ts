/**
 * The comparison half of `probeboard graph` (msprobe-format.md §3, §2.10–§2.12). Call order, as msprobe does it:
 *   read both dumps → `detectDumpMode` (before building: the builder adds `md5` keys to the raw descriptors) and
 *   `isCrossFramework` (cross-framework needs `-lm`) → build both graphs →
 *   `buildLayerMapping(layerMappingSide(...), ..., yamlText|null)` (with `-lm`) →
 *   `compareGraphsAsync` with `tensorMetrics: createTensorPool()` from server/workers/tensorPool.ts in real-tensor
 *   mode (or `compareGraphs` + `applyTensorMetrics`) →
 *   micro steps (the build side's `pagingByMicroStep(npu, bench)`; `inheritBenchMicroSteps` is the Bench half
 *   alone) → `applyOverflowLevels` on both graphs with `-oc`
 *   (or pass `dumpData` to compareGraphs) → `matchDistributed` per side when a step has several ranks → export.
 * Writers read `precisionIndexRepr` / `precisionIndexIsInt` / `md5Result` for what `GraphNode.data` cannot hold.
 */
export {
  detectDumpMode,
  detectFramework,
  isCrossFramework,
  hasMd5,
  DumpModeError,
  CROSS_FRAMEWORK_MESSAGE,
  type DumpMode,
  type DumpFiles,
  type Framework,
} from './mode.js';
export {
  compareGraphs,
  compareGraphsAsync,
  type CompareOptions,
  type CompareOutcome,
  type TensorMetricsProvider,
} from './compareGraphs.js';
export {
  buildLayerMapping,
  layerMappingSide,
  LAYER_MAPPING_FAILED,
  type LayerMappingSide,
  type LayerMappingResult,
} from './layerMapping.js';
export { applyOverflowLevels, overflowLevelOf, type OverflowLevel } from './overflow.js';
export { matchDistributed, type MatchedDistributed } from './distributed.js';
export { inheritBenchMicroSteps } from './microSteps.js';
export { nodeColors, toolTip, type ColorBucket } from './colors.js';
export { precisionIndexRepr, precisionIndexIsInt, getPrecisionIndex, md5Result } from './nodeResults.js';
export {
  TensorPairAccumulator,
  metricsFromHeaders,
  sameMetric,
  type TensorJob,
  type TensorMetrics,
  type TensorInfo,
  type MetricValue,
} from './tensorMetrics.js';
