import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A full garbage collection between the units of a long run. V8 lets the heap grow with the time a process runs
 * (its limit follows how fast the program allocates), so a run of many ranks and steps would end up several times
 * as large as one unit needs, although nothing of a finished unit is still in use. Collecting once a unit is
 * written keeps the whole run at about the peak of one unit, for a few milliseconds per unit (little is alive then).
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
