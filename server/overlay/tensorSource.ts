import { availableParallelism } from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import type { MatchFailure } from '../../src/core/api/overlay.js';
import { tensorPath, type TensorMetricsProvider } from '../../src/core/compare/compareGraphs.js';
import type { TensorJob, TensorMetrics } from '../../src/core/compare/tensorMetrics.js';
import type { PyValue } from '../../src/core/formats/pyJson.js';
import type { TensorLookup, TensorRequest } from '../../src/core/match/index.js';
import { planRun } from '../graph/dumpLayout.js';
import { isInside } from '../logdir/scanLogdir.js';
import { runTensorJob } from '../workers/tensorJob.js';
import { createTensorPool } from '../workers/tensorPool.js';
import type { OverlayTarget } from './overlayEntry.js';

/**
 * The dumped tensors of a real-tensor (`all`) file, for manual matches (src/core/match/realCompare.ts). msprobe's
 * files do not record their dump paths, so the run directory (the served file's folder) must hold the `graph`
 * command's input, `compare.json` (msprobe-format.md §1.2): its `npu_path` / `bench_path`, relative to its folder,
 * must lie inside the log dir, and the graph's dump directories are found in them by the layout rules of §1.3
 * (`[step{S}/][rank{R}/]`, as `graph` walks them). A tensor is `{dump dir}/dump_tensor_data/{data_name}` (§3.6),
 * read only when its real path is a regular file inside the log dir.
 *
 * Reading runs in the compare worker pool (tensorPool.ts, streamed, off the event loop); the registry answers 202
 * meanwhile and plans again when asked again. Metrics are kept by file path, size and mtime.
 */

/** compare.json is a few lines; anything bigger is not one. */
const MAX_COMPARE_JSON_BYTES = 1024 * 1024;
/** Metrics kept per source (a few hundred bytes each) before the oldest half is dropped. */
const MAX_KEPT = 200_000;
/** A failed lookup of compare.json is tried again after this long (the user may be putting it in place). */
const RETRY_MS = 1000;

type Dirs = { npu: string; bench: string };

/** `compare.json`'s version in the run directory, part of an overlay's id: adding or fixing it replays the ops. */
export function compareJsonStamp(target: OverlayTarget): string {
  try {
    const st = fs.statSync(path.join(path.dirname(target.absPath), 'compare.json'));
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'none';
  }
}

let sharedPool: TensorMetricsProvider | null = null;
/** At most two reader threads: the server's own requests keep the rest of the machine. */
const pool = (): TensorMetricsProvider => (sharedPool ??= createTensorPool({ threads: Math.min(2, availableParallelism()) }));

export class TensorSource implements TensorLookup {
  private dirs: Dirs | MatchFailure | undefined;
  private triedAt = 0;
  private stamp = '';
  private readonly kept = new Map<string, TensorMetrics | MatchFailure>();
  private batch: { done: number; total: number } | null = null;

  constructor(
    private readonly logdirReal: string,
    private readonly target: OverlayTarget,
    private readonly provider: () => TensorMetricsProvider = pool,
  ) {}

  /** Before a replay: `stamp` is compareJsonStamp's; a changed compare.json is read again. */
  prepare(stamp: string): void {
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.dirs = undefined;
  }

  metrics(npuDataName: PyValue, benchDataName: PyValue): TensorMetrics | MatchFailure | undefined {
    const dirs = this.resolve();
    if (typeof dirs === 'string') return dirs;
    const job: TensorJob = { npuPath: tensorPath(dirs.npu, npuDataName), benchPath: tensorPath(dirs.bench, benchDataName) };
    // No file on a side ("-1"): msprobe's "unsupported" row, decided without reading anything.
    if (job.npuPath === null || job.benchPath === null) return runTensorJob(job);
    const k = this.key(job);
    return typeof k === 'string' ? this.kept.get(k) : k.problem;
  }

  /**
   * Starts reading `needs` unless a read is under way; returns its progress. The caller answers 202 and plans again
   * on the next request, which finds the metrics kept (or asks for the rest).
   */
  read(needs: readonly TensorRequest[]): { done: number; total: number } {
    if (this.batch) return this.batch;
    const dirs = this.resolve();
    const jobs: TensorJob[] = [];
    const keys: string[] = [];
    const seen = new Set<string>();
    if (typeof dirs !== 'string') {
      for (const need of needs) {
        const job: TensorJob = { npuPath: tensorPath(dirs.npu, need.npu), benchPath: tensorPath(dirs.bench, need.bench) };
        if (job.npuPath === null || job.benchPath === null) continue;
        const k = this.key(job);
        if (typeof k !== 'string' || this.kept.has(k) || seen.has(k)) continue;
        seen.add(k);
        jobs.push(job);
        keys.push(k);
      }
    }
    const batch = (this.batch = { done: 0, total: jobs.length });
    if (jobs.length === 0) {
      this.batch = null;
      return batch;
    }
    void this.run(jobs, keys, batch).finally(() => {
      this.batch = null;
    });
    return batch;
  }

  private async run(jobs: TensorJob[], keys: string[], batch: { done: number; total: number }): Promise<void> {
    if (this.kept.size + jobs.length > MAX_KEPT) this.trim();
    try {
      const results = await this.provider()(jobs, (done) => (batch.done = done));
      results.forEach((m, j) => this.keep(keys[j], m));
    } catch {
      // A reader that failed (a tensor too large to gather, a worker that died) fails the batch: read the pairs
      // one by one, so only the pairs of the bad file fail.
      for (let j = 0; j < jobs.length; j++) {
        try {
          const [m] = await this.provider()([jobs[j]]);
          this.keep(keys[j], m);
        } catch {
          this.kept.set(keys[j], 'tensorUnreadable');
        }
        batch.done = j + 1;
      }
    }
  }

  /** A file `graph` would report as unreadable ("Dump file: … read failed") fails the pair instead. */
  private keep(k: string, m: TensorMetrics): void {
    this.kept.set(k, m.message.startsWith('Dump file:') ? 'tensorUnreadable' : m);
  }

  private trim(): void {
    let drop = this.kept.size >> 1;
    for (const k of this.kept.keys()) {
      if (drop-- <= 0) break;
      this.kept.delete(k);
    }
  }

  /** The job's cache key (real paths, sizes, mtimes), or why its files cannot be read. */
  private key(job: TensorJob): string | { problem: MatchFailure } {
    const parts: string[] = [];
    for (const file of [job.npuPath!, job.benchPath!]) {
      let real: string;
      let st: fs.Stats;
      try {
        real = fs.realpathSync(file);
        st = fs.statSync(real);
      } catch {
        return { problem: 'tensorMissing' };
      }
      if (!isInside(this.logdirReal, real)) return { problem: 'tensorsUnreachable' };
      if (!st.isFile()) return { problem: 'tensorUnreadable' };
      parts.push(real, String(st.size), String(st.mtimeMs));
    }
    return parts.join('\0');
  }

  /** The graph's NPU and Bench dump directories, or why they cannot be found (retried after RETRY_MS). */
  private resolve(): Dirs | MatchFailure {
    if (this.dirs !== undefined && (typeof this.dirs !== 'string' || performance.now() - this.triedAt < RETRY_MS)) return this.dirs;
    this.triedAt = performance.now();
    this.dirs = this.find() ?? 'tensorsUnreachable';
    return this.dirs;
  }

  private find(): Dirs | null {
    const runDir = path.dirname(this.target.absPath);
    const input = this.readCompareJson(path.join(runDir, 'compare.json'));
    if (!input) return null;
    const side = (p: string): string | null => {
      try {
        const real = fs.realpathSync(path.resolve(runDir, p));
        return isInside(this.logdirReal, real) && fs.statSync(real).isDirectory() ? real : null;
      } catch {
        return null;
      }
    };
    const npu = side(input.npu);
    const bench = side(input.bench);
    if (!npu || !bench) return null;
    let units;
    try {
      units = planRun(npu, bench).steps.flat();
    } catch {
      return null; // not a dump layout (§1.3)
    }
    const { step, rank } = this.graphOf(units.length);
    const unit = units.length === 1 && this.target.format === 'vis' ? units[0] : units.find((u) => u.step === step && u.rank === rank);
    return unit && unit.benchDir ? { npu: unit.npuDir, bench: unit.benchDir } : null;
  }

  /**
   * The step and rank of the served graph: a `.vis.db` names them in the request; a `.vis` holds one graph, whose
   * rank (and step) its name carries as `graph` writes it (`compare_rank{N}_…`, `compare_step{S}_rank{N}_…`).
   */
  private graphOf(units: number): { step: number; rank: number } {
    if (this.target.format === 'db' || units === 1) return { step: this.target.step, rank: this.target.rank };
    const m = /(?:^|_)(?:step(\d+)_)?rank(\d+)(?:_|$)/.exec(this.target.tag);
    return m ? { step: Number(m[1] ?? 0), rank: Number(m[2]) } : { step: -1, rank: -1 };
  }

  private readCompareJson(file: string): { npu: string; bench: string } | null {
    try {
      const real = fs.realpathSync(file);
      const st = fs.statSync(real);
      if (!isInside(this.logdirReal, real) || !st.isFile() || st.size > MAX_COMPARE_JSON_BYTES) return null;
      const obj = JSON.parse(fs.readFileSync(real, 'utf8').replace(/^\uFEFF/, '')) as Record<string, unknown>;
      if (typeof obj?.npu_path !== 'string' || typeof obj.bench_path !== 'string' || !obj.npu_path || !obj.bench_path) return null;
      return { npu: obj.npu_path, bench: obj.bench_path };
    } catch {
      return null;
    }
  }
}
