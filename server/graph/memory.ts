import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A full garbage collection at the points of a run where a large part of the heap has just become garbage (a
 * dump read and built, a unit written). V8 lets the heap grow with how fast a program allocates, and this one
 * allocates fast: left alone, one 96-layer comparison peaks near 300 MB, and a run of many ranks and steps several
 * times higher, although a unit never needs more than its two graphs. Each collection costs a few milliseconds to
 * a few tens (little is alive at those points).
 */
let gc: (() => void) | null | undefined;

export function collectGarbage(): void {
  if (gc === undefined) gc = exposeGc();
  gc?.();
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
