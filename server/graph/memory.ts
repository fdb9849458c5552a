import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A full garbage collection between the units of a run of many ranks or steps, where a unit's graphs have just
 * become garbage. V8 lets the heap grow with how fast a program allocates, and this one allocates fast: left alone,
 * a run of many ranks and steps would grow several times higher than one unit needs. Each collection costs a few
 * milliseconds to a few tens (little is alive at those points). A single unit needs none: its reading leaves no
 * large garbage behind (readDumpDir.ts), and a collection after it would have to walk both graphs (40 ms).
 */
let gc: (() => void) | null | undefined;

export function collectGarbage(): void {
  if (gc === undefined) gc = exposeGc();
  gc?.();
}

/**
 * A collector for a loop whose steps each leave garbage (a shard reading its peers, ~25 MB each): it collects once
 * the heap has grown by `bytes` since its last collection, not after every step, as each collection costs about a
 * tenth of a peer's time (one shard of 7 compare peers peaked at 325-349 MB with none, 271-280 MB with 64 MB).
 */
export function collectorEvery(bytes: number): () => void {
  let base = process.memoryUsage().heapUsed;
  return () => {
    if (process.memoryUsage().heapUsed - base <= bytes) return;
    collectGarbage();
    base = process.memoryUsage().heapUsed;
  };
}

function exposeGc(): (() => void) | null {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  try {
    // The usual way to reach V8's collector without starting node with --expose-gc.
    v8.setFlagsFromString('--expose-gc');
    const fn = vm.runInNewContext('gc') as unknown;
    return typeof fn === 'function' ? (fn as () => void) : null;
  } catch {
    return null;
  }
}
