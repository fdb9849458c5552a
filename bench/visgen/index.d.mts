// Types for index.mjs (the generator is plain JavaScript so that benchmarks run with `node` alone).

export interface VisGenOptions {
  /** Nodes per side (the root included); the result is exact. */
  nodes: number;
  /**
   * Modules with many leaf children: `true` = 5,000 leaves each (one module per 50,000 nodes, at least one),
   * a number = that many leaves per wide module, `false`/omitted = none.
   */
  wide?: boolean | number;
  /** Output file; `.vis.db` → SQLite, anything else → JSON `.vis`, unless `format` says otherwise. */
  out: string;
  format?: 'vis' | 'db';
  /** Default 'compare' (NPU and Bench sides). */
  graphType?: 'compare' | 'build';
  seed?: number;
  /** Root children get micro_step_id 0..microSteps-1 (default 1). */
  microSteps?: number;
  /** `.vis.db` only: graphs per step and rank (default [0] and [0]). */
  steps?: number[];
  ranks?: number[];
  log?: (msg: string) => void;
}

export interface VisGenResult {
  out: string;
  format: 'vis' | 'db';
  bytes: number;
  nodesPerSide: number;
  /** Graphs written (sides × steps × ranks). */
  graphs: number;
  rootId: string;
  /** Modules with the `wide` number of leaf children. */
  wideModules: string[];
  /** A module with exactly 1,000 leaf children (when nodes ≥ 2,000), for expand timings. */
  thousandModule: string | null;
  /** The deepest node (a chain of nested modules). */
  deepest: string;
  /** Ancestor ids, root first, of every id named above. */
  paths: Record<string, string[]>;
  seconds: number;
}

export function generateVis(options: VisGenOptions): Promise<VisGenResult>;
