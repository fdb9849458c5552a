import { copyFileSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { NodeChange } from '../../src/core/match/index.js';
import { writeAtomically } from '../atomicFile.js';
import { GraphFileError, StaleFileError } from '../store/graphStore.js';
import { bundledScript } from '../workers/bundledScript.js';
import { writeMatchedDb } from './saveDb.js';
import { writeMatchedVis, type VisPlan } from './saveVis.js';

/**
 * Saving a matched file (issue 15 "Save as…" / "Overwrite") off the event loop: a `.vis.db` of 10^6 nodes a side is
 * gigabytes to copy and fsync, which would hold every other user's request for as long. The copy runs in a worker
 * thread (overlay/saveWorker.js next to the bundle) while the route answers 202 with its progress and the client asks
 * again (SaveJobs). From TypeScript sources (tests) the bundled worker is not there and the save runs in the calling
 * thread, writing the same bytes.
 */

/** One save: the `.bak` of an overwrite (when set), then the matched copy onto `target`. */
export type SaveTask = {
  absPath: string;
  relPath: string;
  target: string;
  bak: string | null;
} & ({ format: 'db'; stamp: string; step: number; rank: number; changes: NodeChange[] } | { format: 'vis'; plan: VisPlan });

/** A save that failed while writing `target` (the `.bak` or the copy): `cause` is what the write threw. */
export class SaveFailure extends Error {
  constructor(
    readonly target: string,
    readonly cause: unknown,
  ) {
    super(`${target}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'SaveFailure';
  }
}

/** The save's share done (0–1) as it goes. */
export type SaveProgress = (share: number) => void;

/** The writes of `task` in this thread (the worker's, or the caller's without one). */
export function performSave(task: SaveTask, progress: SaveProgress): void {
  // An overwrite copies the file twice (the .bak, then the matched copy): each is half the work.
  const half = task.bak ? 0.5 : 0;
  if (task.bak) {
    const bak = task.bak;
    attempt(bak, () => writeAtomically(bak, (_fd, temp) => copyFileSync(task.absPath, temp)));
    progress(half);
  }
  const part = (share: number) => progress(half + (1 - half) * share);
  attempt(task.target, () =>
    task.format === 'db'
      ? writeMatchedDb(task.absPath, task.relPath, task.stamp, task.step, task.rank, task.changes, task.target, part)
      : writeMatchedVis(task.absPath, task.relPath, task.plan, task.target, part),
  );
}

function attempt(target: string, write: () => void): void {
  try {
    write();
  } catch (e) {
    throw new SaveFailure(target, e);
  }
}

/** What the worker posts: progress, then one `done` or `failed` (the error as plain data: it crosses threads). */
export type SaveWorkerMessage =
  | { t: 'progress'; share: number }
  | { t: 'done' }
  | { t: 'failed'; target: string; kind: 'stale' | 'file' | 'other'; problem: string; code: string | null };

/** The message for a failed save (in the worker). */
export function failureMessage(e: unknown, task: SaveTask): SaveWorkerMessage {
  const target = e instanceof SaveFailure ? e.target : task.target;
  const cause = e instanceof SaveFailure ? e.cause : e;
  const code = (cause as { code?: unknown } | null)?.code;
  if (cause instanceof StaleFileError) return { t: 'failed', target, kind: 'stale', problem: '', code: null };
  if (cause instanceof GraphFileError) return { t: 'failed', target, kind: 'file', problem: cause.problem, code: null };
  return { t: 'failed', target, kind: 'other', problem: cause instanceof Error ? cause.message : String(cause), code: typeof code === 'string' ? code : null };
}

/** The failure as this thread's classes again (the route maps them to answers). */
function failureOf(m: Extract<SaveWorkerMessage, { t: 'failed' }>, task: SaveTask): SaveFailure {
  if (m.kind === 'stale') return new SaveFailure(m.target, new StaleFileError(task.relPath));
  if (m.kind === 'file') return new SaveFailure(m.target, new GraphFileError(task.relPath, m.problem));
  return new SaveFailure(m.target, Object.assign(new Error(m.problem), m.code ? { code: m.code } : {}));
}

export function defaultSaveWorkerScript(): string | null {
  return bundledScript('overlay/saveWorker.js', import.meta.url);
}

/** Runs `task` in a worker thread (`script` null: in this thread); rejects with a SaveFailure. */
export function runSave(task: SaveTask, progress: SaveProgress, script: string | null = defaultSaveWorkerScript()): Promise<void> {
  if (!script) {
    try {
      performSave(task, progress);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return new Promise((resolve, reject) => {
    // The thread holds a buffer of the copy and the changed rows at a time.
    const worker = new Worker(script, { workerData: task, resourceLimits: { maxYoungGenerationSizeMb: 16 } });
    let settled = false;
    worker.on('message', (m: SaveWorkerMessage) => {
      if (m.t === 'progress') return progress(m.share);
      settled = true;
      if (m.t === 'done') resolve();
      else reject(failureOf(m, task));
    });
    worker.on('error', (e) => {
      settled = true;
      reject(new SaveFailure(task.target, e));
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new SaveFailure(task.target, new Error(`the save thread stopped (exit code ${code})`)));
    });
  });
}

/** The `.bak` and copy a save writes are this many times the file's size (for the progress shown). */
export function saveBytes(task: Pick<SaveTask, 'absPath' | 'bak'>): number {
  return statSync(task.absPath).size * (task.bak ? 2 : 1);
}

/** How long a save request waits for its save before answering 202 (the client asks again 300 ms later). */
const WAIT_MS = 1000;
/** A finished save's answer waits this long for the client that was told 202 to ask again. */
const KEEP_MS = 10 * 60_000;

/** One save under way or finished, and the answers it owes. */
export class SaveJob<T> {
  share = 0;
  /** The file saved (its path in the log dir), named in the progress; set by the save. */
  file = '';
  /** The bytes the save writes (saveBytes), shown as the progress's total; set by the save once known. */
  bytesTotal = 0;
  /** 202 answers sent whose client has not asked again yet. */
  owed = 0;
  private outcome: { ok: true; value: T } | { ok: false; error: unknown } | null = null;
  readonly settled: Promise<void>;

  /** `run` gets the job (to set `file` and `bytesTotal`) and the progress callback to pass to runSave. */
  constructor(run: (job: SaveJob<T>, progress: SaveProgress) => Promise<T>) {
    this.settled = run(this, (share) => (this.share = share)).then(
      (value) => void (this.outcome = { ok: true, value }),
      (error) => void (this.outcome = { ok: false, error }),
    );
  }

  /** The outcome when the save ends within `ms`, else null (still running). */
  async within(ms: number): Promise<{ ok: true; value: T } | { ok: false; error: unknown } | null> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settled, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
    return this.outcome;
  }
}

/**
 * Saves by request: a request answered 202 leaves its save here under `key` (the file, overlay and body), and the
 * client's next identical request picks it up — one per 202 sent, so that another client's identical request made
 * meanwhile starts its own save (and, the file having changed, gets 409: of two saves one wins).
 */
export class SaveJobs<T> {
  /** By key: identical requests of two clients may each have a save under way. */
  private readonly jobs = new Map<string, Array<SaveJob<T>>>();

  /** The save a 202 told this request's client to ask again about, if any. */
  claim(key: string): SaveJob<T> | undefined {
    const job = this.jobs.get(key)?.find((j) => j.owed > 0);
    if (job) job.owed--;
    return job;
  }

  /**
   * The job's answer, waiting up to WAIT_MS: its value (or it throws its error), or null after `pending` has sent
   * 202 — then the job is kept under `key` for the client's next request.
   */
  async answer(key: string, job: SaveJob<T>, pending: (job: SaveJob<T>) => void): Promise<T | null> {
    const outcome = await job.within(WAIT_MS);
    if (outcome === null) {
      job.owed++;
      const kept = this.jobs.get(key) ?? [];
      if (!kept.includes(job)) {
        this.jobs.set(key, [...kept, job]);
        // Kept until its answer is taken or, when the client is gone, for KEEP_MS after the save ends.
        void job.settled.then(() => setTimeout(() => this.drop(key, job), KEEP_MS).unref());
      }
      pending(job);
      return null;
    }
    if (job.owed === 0) this.drop(key, job);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private drop(key: string, job: SaveJob<T>): void {
    const left = (this.jobs.get(key) ?? []).filter((j) => j !== job);
    if (left.length > 0) this.jobs.set(key, left);
    else this.jobs.delete(key);
  }
}
