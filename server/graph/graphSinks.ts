import type { FormatEra } from '../../src/core/formats/formatEra.js';
import type { JsonTree } from '../../src/core/formats/pyJsonWrite.js';
import { configRow } from '../../src/core/formats/visDb.js';
import { distributedMember, writeVisJson, type DistributedMark } from '../../src/core/formats/visJson.js';
import type { Graph } from '../../src/core/model/graph.js';
import type { DumpUnit } from './dumpLayout.js';
import {
  dbFileName,
  OutputDir,
  outputWriteError,
  spliceFile,
  visFileName,
  writeFileChunks,
  writeFileSynced,
  writingTo,
} from './outputFiles.js';
import { openDbRowTarget } from './dbWorker.js';
import { VisDbWriter } from './writeDb.js';
import { writeShardTable, type ShardMeta } from './shardMeta.js';

/** What one exported (step, rank) carries besides its graphs (msprobe's GraphExportConfig). */
export interface ExportMeta {
  microSteps: number;
  /** '' for build runs, else the dump mode (`summary`, `md5`, `all`, `structure`). */
  task: string;
  toolTip: string | null;
  /** `Colors` / `node_colors`; null for build runs. */
  colors: JsonTree;
  overflowCheck: boolean;
  /** Ranks of the unit's step (`tb_config.rank_list`; msprobe keeps the first step's). */
  rankList: number[];
  stepList: number[];
  /** The step has several ranks: `matched_distributed` comes later, through `updateDistributed`. */
  crossRank: boolean;
}

/**
 * Where finished graphs go: `.vis` files (one per unit) or one `.vis.db`; nothing is visible before `commit`.
 * A unit is written as soon as it is compared, so a run holds one unit at a time; in steps of several ranks the
 * `matched_distributed` values (which need every rank of the step) follow once the step's ranks are all written.
 */
export interface GraphSink {
  readonly era: FormatEra;
  add(unit: DumpUnit, npu: Graph, bench: Graph | null, meta: ExportMeta): Promise<void>;
  /**
   * Cross-rank steps: the `matched_distributed` of a unit added before (from graphs holding at least its
   * `Distributed.*` nodes; nodes without a value are skipped). Called once per such unit.
   */
  updateDistributed(unit: DumpUnit, npu: Graph | undefined, bench: Graph | undefined): Promise<void>;
  /** Renames the outputs into place and returns their paths. */
  commit(): Promise<string[]>;
  /** Removes everything written so far. */
  abort(): Promise<void>;
}

/**
 * The `.vis.db` is written by a worker thread where its bundled script is there (dbWorker.ts): SQLite's inserts and
 * index upkeep then overlap making the rows and the next units (a single 96-layer comparison takes a tenth less
 * time, a million-node run a sixth).
 */
export function openSink(format: 'vis' | 'db', out: OutputDir, kind: 'build' | 'compare', ts: string, shard?: ShardMeta): GraphSink {
  out.prepare();
  return format === 'vis' ? new VisSink(out, kind, ts) : new DbSink(out, kind, ts, shard);
}

/** A `.vis` waiting for its step's cross-rank matching: written without `matched_distributed`, marks kept. */
interface VisDraft {
  draft: string;
  /** The reserved (temporary) name of the final file, and the path it gets. */
  final: string;
  finalPath: string;
  marks: DistributedMark[];
}

class VisSink implements GraphSink {
  readonly era = 'vis202507' as const;
  private readonly drafts = new Map<string, VisDraft>();

  constructor(
    private readonly out: OutputDir,
    private readonly kind: 'build' | 'compare',
    private readonly ts: string,
  ) {}

  async add(unit: DumpUnit, npu: Graph, bench: Graph | null, meta: ExportMeta): Promise<void> {
    const name = visFileName(this.kind, this.ts, unit.stepDir, unit.rankDir);
    const content = {
      npu,
      bench,
      toolTip: meta.toolTip,
      colors: meta.colors,
      microSteps: meta.microSteps,
      task: meta.task,
      overflowCheck: meta.overflowCheck,
    };
    if (!meta.crossRank) {
      const file = this.out.reserve(name);
      await writingTo(this.out.finalPath(name), () => writeFileSynced(file, (write) => writeVisJson(content, write)));
      return;
    }
    const draft: VisDraft = {
      draft: this.out.scratchFile(name),
      final: this.out.reserve(name),
      finalPath: this.out.finalPath(name),
      marks: [],
    };
    await writingTo(draft.finalPath, () =>
      writeFileChunks(draft.draft, (write) => writeVisJson(content, write, (mark) => draft.marks.push(mark))),
    );
    this.drafts.set(unitKey(unit), draft);
  }

  /** The final file: the draft with the `matched_distributed` members the matching found. */
  async updateDistributed(unit: DumpUnit, npu: Graph | undefined, bench: Graph | undefined): Promise<void> {
    const draft = this.drafts.get(unitKey(unit));
    if (!draft) return;
    const insertions: Array<[number, string]> = [];
    for (const mark of draft.marks) {
      const graph = mark.side === 'Bench' ? bench : npu;
      const value = graph?.nodeMap.get(mark.nodeId)?.matchedDistributed;
      if (isNonEmpty(value)) insertions.push([mark.offset, distributedMember(value, mark)]);
    }
    await writingTo(draft.finalPath, () => spliceFile(draft.draft, draft.final, insertions));
    this.out.dropScratch(draft.draft);
    this.drafts.delete(unitKey(unit));
  }

  async commit(): Promise<string[]> {
    return this.out.commit();
  }

  async abort(): Promise<void> {
    this.out.abort();
  }
}

function unitKey(unit: DumpUnit): string {
  return `${unit.step}/${unit.rank}`;
}

/** msprobe writes `matched_distributed` only when truthy. */
function isNonEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return Boolean(v);
}

class DbSink implements GraphSink {
  readonly era = 'db' as const;
  private readonly writer: VisDbWriter;
  /** The name the file gets (named in write errors). */
  private readonly file: string;
  private readonly temp: string;

  constructor(
    private readonly out: OutputDir,
    private readonly kind: 'build' | 'compare',
    ts: string,
    private readonly shard?: ShardMeta,
  ) {
    const name = dbFileName(kind, ts);
    this.file = out.finalPath(name);
    const temp = (this.temp = out.reserve(name));
    try {
      this.writer = new VisDbWriter(openDbRowTarget(temp));
    } catch (e) {
      throw outputWriteError(this.file, e);
    }
  }

  add(unit: DumpUnit, npu: Graph, bench: Graph | null, meta: ExportMeta): Promise<void> {
    return writingTo(this.file, () => this.addRows(unit, npu, bench, meta));
  }

  private async addRows(unit: DumpUnit, npu: Graph, bench: Graph | null, meta: ExportMeta): Promise<void> {
    const md5Mode = meta.task === 'md5';
    await this.writer.addGraph(npu, { source: 'NPU', step: unit.step, rank: unit.rank, md5Mode });
    if (bench) await this.writer.addGraph(bench, { source: 'Bench', step: unit.step, rank: unit.rank, md5Mode });
    await this.writer.addConfig(
      configRow({
        compare: this.kind === 'compare',
        task: meta.task,
        toolTip: meta.toolTip,
        microSteps: meta.microSteps,
        overflowCheck: meta.overflowCheck,
        nodeColors: meta.colors,
        rankList: meta.rankList,
        stepList: meta.stepList,
      }),
    );
  }

  updateDistributed(unit: DumpUnit, npu: Graph | undefined, bench: Graph | undefined): Promise<void> {
    return writingTo(this.file, async () => {
      if (npu) await this.writer.updateDistributed(npu, { source: 'NPU', step: unit.step, rank: unit.rank });
      if (bench) await this.writer.updateDistributed(bench, { source: 'Bench', step: unit.step, rank: unit.rank });
    });
  }

  async commit(): Promise<string[]> {
    await writingTo(this.file, () => this.writer.finish());
    if (this.shard) await writingTo(this.file, () => writeShardTable(this.temp, this.shard!));
    return this.out.commit();
  }

  async abort(): Promise<void> {
    try {
      await this.writer.abandon();
    } finally {
      this.out.abort();
    }
  }
}
