import type { PyValue } from '../formats/pyJson.js';
import type { DumpValue } from '../formats/pyJsonNative.js';
import type { Graph, GraphNode } from '../model/graph.js';
import { nodeColors, toolTip, type ColorBucket } from './colors.js';
import { matchGraphs } from './match.js';
import type { DumpMode } from './mode.js';
import { applyOverflowLevels } from './overflow.js';
import { applyCollectionIndices, applyRealRows, applyRows } from './precisionIndex.js';
import { compareRows, type CompareRow } from './rows.js';
import { sameMetric, type TensorJob, type TensorMetrics } from './tensorMetrics.js';

/**
 * One NPU/Bench graph pair compared the msprobe way (msprobe-format.md §3): match (BFS), pair items, write the
 * compare columns into the NPU items, set `precision_index`, then the `Apis_Between_Modules` indices.
 * Real-tensor mode leaves the tensor work as `tensorJobs`; `compareGraphsAsync` runs them through a
 * `TensorMetricsProvider` (the worker pool in server/workers) and finishes the indices.
 */

export interface CompareOptions {
  mode: DumpMode;
  fuzzy: boolean;
  /** `-lm` name map (see `buildLayerMapping`); an empty map still means "layer-mapping matching". */
  layerMapping: Map<string, string> | null;
  /** `-oc`: with `dumpData` given, overflow levels are set on both graphs here (§2.11). */
  overflowCheck: boolean;
  /** dump.json `data` of each side, for `-oc`. */
  dumpData?: { npu: ReadonlyMap<string, DumpValue>; bench: ReadonlyMap<string, DumpValue> };
  /** False under parallel merge: fuzzy matching without the shape check. */
  checkShape?: boolean;
}

/** Computes metrics for jobs in order; must stream files and may use several threads. */
export type TensorMetricsProvider = (
  jobs: TensorJob[],
  onProgress?: (done: number, total: number) => void,
) => Promise<TensorMetrics[]>;

export interface CompareOutcome {
  /** Written as `task`. */
  task: DumpMode;
  /** `Colors` / `node_colors`. */
  colors: Record<string, ColorBucket>;
  /** `ToolTip` / `tool_tip`: a JSON-encoded string. */
  toolTip: string;
  /** Matched NPU nodes (the root included). */
  matchedCount: number;
  /** Real-tensor mode: file pairs still to compare, in msprobe's row order. Empty otherwise. */
  tensorJobs: TensorJob[];
  /** Real-tensor mode: writes the metrics (same order as `tensorJobs`) and sets the precision indices. */
  applyTensorMetrics(metrics: TensorMetrics[]): void;
}

/** `{dump dir}/dump_tensor_data/{data_name}` (§3.6), or null for no file (`"-1"`); also used by manual matching. */
export function tensorPath(dumpDir: string, dataName: PyValue | undefined): string | null {
  if (typeof dataName !== 'string' || dataName === '-1' || dataName === '') return null;
  const dir = dumpDir.endsWith('/') ? dumpDir.slice(0, -1) : dumpDir;
  return `${dir}/dump_tensor_data/${dataName}`;
}

/** A real-tensor row's six metric cells, its Requires_grad Consistent kept (REAL_COLUMNS order). */
export function withMetrics(row: CompareRow, m: TensorMetrics): void {
  const consistent = row.values[row.values.length - 1];
  row.values = [m.cosine, m.eucDist, m.maxAbsErr, m.maxRelativeErr, m.oneThousandth, m.fiveThousandths, consistent];
}

export function compareGraphs(npu: Graph, bench: Graph, options: CompareOptions): CompareOutcome {
  const mode = options.mode;
  let matchedCount = 0;
  const realRows: CompareRow[] = [];
  const realNodes: GraphNode[] = [];

  matchGraphs(
    npu,
    bench,
    { fuzzy: options.fuzzy, layerMapping: options.layerMapping, checkShape: options.checkShape },
    (n, b) => {
      matchedCount++;
      const rows = compareRows(n, b, mode);
      // msprobe only annotates (and indexes) a node when the pair produced rows.
      if (rows.length === 0) return;
      if (mode === 'all') {
        realRows.push(...rows);
        realNodes.push(n);
      } else {
        applyRows(n, rows, mode);
      }
    },
  );
  // msprobe computes the collection indices before the real-tensor metrics exist, so in real mode they are 0.
  applyCollectionIndices(npu, mode);

  if (options.overflowCheck && options.dumpData) {
    applyOverflowLevels(npu, options.dumpData.npu);
    applyOverflowLevels(bench, options.dumpData.bench);
  }

  const tensorJobs: TensorJob[] = [];
  const jobRows: CompareRow[] = [];
  for (const row of realRows) {
    const npuPath = tensorPath(npu.dumpDir, row.npuDataName);
    const benchPath = tensorPath(bench.dumpDir, row.benchDataName);
    if (npuPath === null) {
      withMetrics(row, sameMetric('unsupported', 'NPU does not have data file.'));
    } else if (benchPath === null) {
      withMetrics(row, sameMetric('unsupported', 'Bench does not have data file.'));
    } else {
      tensorJobs.push({ npuPath, benchPath });
      jobRows.push(row);
    }
  }

  let applied = mode !== 'all';
  return {
    task: mode,
    colors: nodeColors(mode),
    toolTip: toolTip(mode),
    matchedCount,
    tensorJobs,
    applyTensorMetrics(metrics: TensorMetrics[]): void {
      if (applied) return;
      if (metrics.length !== jobRows.length) {
        throw new Error(`expected ${jobRows.length} tensor results, got ${metrics.length}`);
      }
      applied = true;
      jobRows.forEach((row, i) => withMetrics(row, metrics[i]));
      const rowsByName = new Map<string, CompareRow>();
      for (const row of realRows) rowsByName.set(row.name, row);
      for (const node of realNodes) applyRealRows(node, rowsByName);
    },
  };
}

/** `compareGraphs`, then (real-tensor mode) the tensor metrics through `tensorMetrics`. */
export async function compareGraphsAsync(
  npu: Graph,
  bench: Graph,
  options: CompareOptions & {
    tensorMetrics?: TensorMetricsProvider;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<CompareOutcome> {
  const outcome = compareGraphs(npu, bench, options);
  if (options.mode === 'all') {
    let metrics: TensorMetrics[] = [];
    if (outcome.tensorJobs.length > 0) {
      if (!options.tensorMetrics) throw new Error('real-tensor compare needs a tensor reader (tensorMetrics)');
      metrics = await options.tensorMetrics(outcome.tensorJobs, options.onProgress);
    }
    outcome.applyTensorMetrics(metrics);
  }
  return outcome;
}
