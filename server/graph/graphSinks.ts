import type { FormatEra } from '../../src/core/formats/formatEra.js';
import type { JsonTree } from '../../src/core/formats/pyJsonWrite.js';
import { configRow, type DataSource } from '../../src/core/formats/visDb.js';
import { writeVisJson } from '../../src/core/formats/visJson.js';
import type { Graph } from '../../src/core/model/graph.js';
import type { DumpUnit } from './dumpLayout.js';
import { dbFileName, OutputDir, visFileName, writeFileSynced } from './outputFiles.js';
import { openDbRowTarget } from './dbWorker.js';
import { VisDbWriter } from './writeDb.js';

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
}

/** Where finished graphs go: `.vis` files (one per unit) or one `.vis.db`; nothing is visible before `commit`. */
export interface GraphSink {
  readonly era: FormatEra;
  /** True when a graph's cross-rank results may arrive after the graph itself (`updateDistributed`). */
  readonly streamsRanks: boolean;
  add(unit: DumpUnit, npu: Graph, bench: Graph | null, meta: ExportMeta): Promise<void>;
  /** Streaming sinks: the `matched_distributed` of nodes already added (nodes without one are skipped). */
  updateDistributed(unit: DumpUnit, source: DataSource, graph: Graph | undefined): Promise<void>;
  /** Renames the outputs into place and returns their paths. */
  commit(): Promise<string[]>;
  /** Removes everything written so far. */
  abort(): Promise<void>;
}

export function openSink(format: 'vis' | 'db', out: OutputDir, kind: 'build' | 'compare', ts: string): GraphSink {
  out.prepare();
  return format === 'vis' ? new VisSink(out, kind, ts) : new DbSink(out, kind, ts);
}

class VisSink implements GraphSink {
  readonly era = 'vis202507' as const;
  readonly streamsRanks = false;

  constructor(
    private readonly out: OutputDir,
    private readonly kind: 'build' | 'compare',
    private readonly ts: string,
  ) {}

  async add(unit: DumpUnit, npu: Graph, bench: Graph | null, meta: ExportMeta): Promise<void> {
    const temp = this.out.reserve(visFileName(this.kind, this.ts, unit.stepDir, unit.rankDir));
    writeFileSynced(temp, (write) =>
      writeVisJson(
        {
          npu,
          bench,
          toolTip: meta.toolTip,
          colors: meta.colors,
          microSteps: meta.microSteps,
          task: meta.task,
          overflowCheck: meta.overflowCheck,
        },
        write,
      ),
    );
  }

  updateDistributed(): Promise<void> {
    throw new Error('the JSON sink writes whole files: match ranks before add()');
  }

  async commit(): Promise<string[]> {
    return this.out.commit();
  }

  async abort(): Promise<void> {
    this.out.abort();
  }
}

class DbSink implements GraphSink {
  readonly era = 'db' as const;
  readonly streamsRanks = true;
  private readonly writer: VisDbWriter;

  constructor(
    private readonly out: OutputDir,
    private readonly kind: 'build' | 'compare',
    ts: string,
  ) {
    this.writer = new VisDbWriter(openDbRowTarget(out.reserve(dbFileName(kind, ts))));
  }

  async add(unit: DumpUnit, npu: Graph, bench: Graph | null, meta: ExportMeta): Promise<void> {
    const md5Mode = meta.task === 'md5';
    await this.writer.addGraph(npu, { source: 'NPU', step: unit.step, rank: unit.rank, md5Mode });
    (globalThis as any).__T?.('npu rows');
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

  async updateDistributed(unit: DumpUnit, source: DataSource, graph: Graph | undefined): Promise<void> {
    if (graph) await this.writer.updateDistributed(graph, { source, step: unit.step, rank: unit.rank });
  }

  async commit(): Promise<string[]> {
    (globalThis as any).__T?.('bench rows');
    await this.writer.finish();
    (globalThis as any).__T?.('finished');
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
