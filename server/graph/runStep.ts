import { buildDistributedNodes, buildGraph } from '../../src/core/build/buildGraph.js';
import { pagingByMicroStep } from '../../src/core/build/microSteps.js';
import { matchDistributed } from '../../src/core/compare/distributed.js';
import { getPrecisionIndex, setPrecisionIndex } from '../../src/core/compare/nodeResults.js';
import type { JsonTree } from '../../src/core/formats/pyJsonWrite.js';
import { GraphNode, type Graph } from '../../src/core/model/graph.js';
import type { DumpUnit, RunPlan } from './dumpLayout.js';
import type { GraphSink } from './graphSinks.js';
import { collectGarbage, collectorEvery } from './memory.js';
import { applyOverflowLevels } from './overflowLevels.js';
import type { RunProgress } from './progress.js';
import { yieldToEvents } from '../interrupt.js';
import { readDumpDirForBuild, releaseFileBuffer } from './readDumpDir.js';
import { countGraph, unitLabel, type GraphRunSummary } from './runSummary.js';

/**
 * One step of a run: every rank's graph (pair), export, then cross-rank matching of communication nodes
 * (msprobe-format.md §2.12). Each rank is written as soon as it is done and only small copies of its
 * `Distributed.*` nodes wait for the cross-rank pass, whose results go to the sink last (graphSinks.ts), so a step
 * of many ranks never sits in memory at once.
 */

/** What one rank produced. */
export interface UnitResult {
  npu: Graph;
  bench: Graph | null;
  microSteps: number;
  /** '' for build runs. */
  task: string;
  toolTip: string | null;
  colors: JsonTree;
}

export interface StepContext {
  plan: RunPlan;
  sink: GraphSink;
  summary: GraphRunSummary;
  progress: RunProgress;
  overflowCheck: boolean;
  /**
   * The run has several units: garbage is collected between units; a run of one collects once its graphs are built
   * (memory.ts).
   */
  manyUnits: boolean;
  /**
   * Sharded runs (shards.ts): the units this run writes. The step's other ranks are only read for cross-rank
   * matching (foreignUnit), those that the shard's own communication nodes name.
   */
  own?: ReadonlySet<DumpUnit>;
  /** The `Distributed.*` nodes of a rank another shard writes, with what matching reads of them. */
  foreignUnit?: (unit: DumpUnit) => Promise<{ npu: Graph; bench: Graph | null }>;
  /** `tb_config.rank_list` / `step_list` of a shard: its own ranks and steps (default: the step's, the run's). */
  configRankList?: number[];
  configStepList?: number[];
}

export async function runStep(
  units: DumpUnit[],
  ctx: StepContext,
  processUnit: (unit: DumpUnit) => Promise<UnitResult>,
): Promise<void> {
  const { sink, summary, progress } = ctx;
  const own = ctx.own;
  const ownUnits = own ? units.filter((u) => own.has(u)) : units;
  if (ownUnits.length === 0) return;
  const rankList = ctx.configRankList ?? units.map((u) => u.rank);
  const crossRank = units.length > 1;
  const npuByRank = new Map<number, Graph>();
  const benchByRank = new Map<number, Graph>();

  // One unit, in a function of its own: once it returns, nothing of the unit's graphs is left on this frame, so
  // the unit is garbage before the next one starts (only copies of its Distributed.* nodes wait for the matching).
  const oneUnit = async (unit: DumpUnit): Promise<void> => {
    const r = await processUnit(unit);
    progress.tick(unitLabel(unit), r.npu.nodeMap.size);
    await sink.add(unit, r.npu, r.bench, {
      microSteps: r.microSteps,
      task: r.task,
      toolTip: r.toolTip,
      colors: r.colors,
      overflowCheck: ctx.overflowCheck,
      rankList,
      stepList: ctx.configStepList ?? ctx.plan.stepList,
      crossRank,
    });
    countGraph(summary, r.npu, r.bench, r.task);
    await yieldToEvents();
    progress.tick(unitLabel(unit));
    if (crossRank) {
      npuByRank.set(unit.rank, distributedSkeleton(r.npu));
      if (r.bench) benchByRank.set(unit.rank, distributedSkeleton(r.bench));
    }
  };

  for (const unit of ownUnits) {
    // Collect the previous unit before this one fills the heap again.
    if (ctx.manyUnits && summary.graphs > 0) collectGarbage();
    await yieldToEvents();
    await oneUnit(unit);
  }
  if (!crossRank) return;
  if (ownUnits.length < units.length) await addForeignPeers(units, ctx, npuByRank, benchByRank);
  matchDistributed(npuByRank, ctx.overflowCheck);
  if (benchByRank.size) matchDistributed(benchByRank, ctx.overflowCheck);
  for (const unit of ownUnits) await sink.updateDistributed(unit, npuByRank.get(unit.rank), benchByRank.get(unit.rank));
}

/** Heap that read peers may leave behind before it is collected. */
const PEER_GARBAGE_BYTES = 64 << 20;

/**
 * A shard's cross-rank matching: the ranks its own communication nodes name (peers of send/recv and batch P2P ops,
 * members of collective groups, which include a broadcast's or scatter's root) are read for their `Distributed.*`
 * nodes, and every rank goes to the matching in the step's order, as in a whole run, so the own ranks' values come
 * out the same (matchDistributed sets a node's value only from those ranks' nodes).
 */
async function addForeignPeers(
  units: DumpUnit[],
  ctx: StepContext,
  npuByRank: Map<number, Graph>,
  benchByRank: Map<number, Graph>,
): Promise<void> {
  const wanted = new Set<number>();
  for (const graphs of [npuByRank, benchByRank]) for (const g of graphs.values()) for (const r of peerRanks(g)) wanted.add(r);
  const npu = new Map<number, Graph>();
  const bench = new Map<number, Graph>();
  const collect = collectorEvery(PEER_GARBAGE_BYTES);
  for (const unit of units) {
    const ownNpu = npuByRank.get(unit.rank);
    if (ownNpu) {
      npu.set(unit.rank, ownNpu);
      const ownBench = benchByRank.get(unit.rank);
      if (ownBench) bench.set(unit.rank, ownBench);
      continue;
    }
    if (!wanted.has(unit.rank)) continue;
    // Each peer's reading leaves its construct.json and graphs behind.
    collect();
    await yieldToEvents();
    const r = await ctx.foreignUnit!(unit);
    npu.set(unit.rank, distributedSkeleton(r.npu));
    if (r.bench) bench.set(unit.rank, distributedSkeleton(r.bench));
  }
  for (const [target, from] of [[npuByRank, npu], [benchByRank, bench]] as const) {
    target.clear();
    for (const [k, v] of from) target.set(k, v);
  }
}

/** The ranks a graph's communication nodes name (integer ranks only: matchDistributed finds no other). */
function peerRanks(graph: Graph): Set<number> {
  const out = new Set<number>();
  const add = (v: unknown) => {
    if (typeof v === 'bigint') out.add(Number(v));
    else if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) out.add(Number(v));
  };
  for (const [id, node] of graph.nodeMap) {
    if (!id.startsWith('Distributed')) continue;
    for (const info of node.batchP2pInfo) add(info.peer);
    for (const [key, item] of node.inputData) {
      if (key.endsWith('.input.group')) {
        const ranks = item.get('group_ranks');
        if (Array.isArray(ranks)) ranks.forEach(add);
      } else if (/\.input\.(?:src|dst|1)$/.test(key)) add(item.get('value'));
    }
  }
  return out;
}

/**
 * Copies of the `Distributed.*` nodes, all cross-rank matching reads (items, batch P2P info, index or overflow
 * level), without parents: the rest of the graph can be freed.
 */
function distributedSkeleton(graph: Graph): Graph {
  const root = new GraphNode(graph.root.id, graph.root.op);
  const nodeMap = new Map<string, GraphNode>([[root.id, root]]);
  for (const [id, node] of graph.nodeMap) {
    if (!id.startsWith('Distributed')) continue;
    const copy = new GraphNode(id, node.op);
    for (const [k, v] of node.inputData) copy.inputData.set(k, v);
    for (const [k, v] of node.outputData) copy.outputData.set(k, v);
    copy.batchP2pInfo = node.batchP2pInfo;
    if (node.data.overflowLevel !== undefined) copy.data.overflowLevel = node.data.overflowLevel;
    const index = getPrecisionIndex(node);
    if (index !== undefined) setPrecisionIndex(copy, index);
    nodeMap.set(id, copy);
  }
  return { ...graph, root, nodeMap };
}

const isDistributed = (name: string): boolean => name.startsWith('Distributed');

/** A build run's rank that another shard writes: its `Distributed.*` nodes (with `-oc` levels) only. */
export function distributedUnit(unit: DumpUnit, ctx: StepContext): Graph {
  const src = readDumpDirForBuild(unit.npuDir, { overflowLevels: ctx.overflowCheck, skipStack: true, only: isDistributed });
  const graph = buildDistributedNodes(src, { era: ctx.sink.era, step: unit.step, rank: unit.rank });
  if (src.levels) applyOverflowLevels(graph, src.levels);
  releaseFileBuffer();
  return graph;
}

/** A build run's rank: read, build, micro steps, `-oc` levels. */
export async function buildUnit(unit: DumpUnit, ctx: StepContext): Promise<UnitResult> {
  const src = readDumpDirForBuild(unit.npuDir, { overflowLevels: ctx.overflowCheck });
  const levels = src.levels;
  const { graph, warnings } = buildGraph(src, { era: ctx.sink.era, step: unit.step, rank: unit.rank });
  ctx.summary.warnings.push(...warnings);
  const microSteps = pagingByMicroStep(graph, null, ctx.sink.era);
  if (levels) applyOverflowLevels(graph, levels);
  releaseFileBuffer();
  return { npu: graph, bench: null, microSteps, task: '', toolTip: null, colors: null };
}
