import type { StoreCache } from '../store/openStore.js';
import type { LogRoots } from './logRoots.js';
import { compareRuns, compareTags, scanLogdir, type ScannedRun } from './scanLogdir.js';

/**
 * The run listing `/api/runs` answers, scanned again at most every `--reload_interval` seconds (TensorBoard's flag:
 * new and grown files appear without a restart; 0 = the first scan only). `reloadMs` null scans on every request.
 * Concurrent requests share one scan.
 */
export class RunListing {
  private runs: ScannedRun[] | null = null;
  private scannedAt = 0;
  private scanning: Promise<ScannedRun[]> | null = null;

  constructor(
    private readonly roots: LogRoots,
    private readonly stores: StoreCache,
    private readonly reloadMs: number | null,
  ) {}

  get(): Promise<ScannedRun[]> {
    const fresh = this.runs !== null && this.reloadMs !== null && (this.reloadMs === 0 || performance.now() - this.scannedAt < this.reloadMs);
    if (fresh) return Promise.resolve(this.runs!);
    this.scanning ??= this.scan().finally(() => (this.scanning = null));
    return this.scanning;
  }

  private async scan(): Promise<ScannedRun[]> {
    const startedAt = performance.now();
    // Event files are scanned asynchronously (their graphs are tags): new or grown ones are waited for, then listed.
    const pending: Array<Promise<unknown>> = [];
    let runs = scanRoots(this.roots, this.stores, pending);
    if (pending.length > 0) {
      await Promise.all(pending);
      runs = scanRoots(this.roots, this.stores);
    }
    this.runs = runs;
    this.scannedAt = startedAt;
    return runs;
  }
}

/**
 * Every root's runs. Runs of one name from several roots (unnamed `--logdir_spec` entries with the same sub-directory,
 * as TensorBoard merges them) are one run; of two files with one tag and format the earlier root's is listed, which
 * is the one resolveGraphFile opens.
 */
export function scanRoots(roots: LogRoots, stores: StoreCache, pending?: Array<Promise<unknown>>): ScannedRun[] {
  if (roots.roots.length === 1) return scanLogdir(roots.roots[0].real, stores, undefined, pending, roots.roots[0].name);
  const byRun = new Map<string, ScannedRun>();
  for (const root of roots.roots) {
    for (const r of scanLogdir(root.real, stores, undefined, pending, root.name)) {
      const held = byRun.get(r.run);
      if (!held) byRun.set(r.run, r);
      else for (const t of r.tags) if (!held.tags.some((h) => h.tag === t.tag && h.format === t.format)) held.tags.push(t);
    }
  }
  const runs = [...byRun.values()];
  for (const r of runs) r.tags.sort(compareTags);
  return runs.sort(compareRuns);
}
