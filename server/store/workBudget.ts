/**
 * The time one request may spend in a store before it gives up (issue 12: one request must never stall the others
 * on the single event loop). Store calls are synchronous, so the route opens a budget around one call and the
 * stores' long loops (searches, ancestor walks, record reads) call `checkBudget()`; past the deadline it throws
 * WorkBudgetExceeded, which the route answers 503 with the reason and a Retry-After. Outside a request (CLI, tests)
 * there is no budget and `checkBudget()` costs one comparison.
 */

export class WorkBudgetExceeded extends Error {
  constructor(
    readonly file: string,
    readonly ms: number,
  ) {
    super(`${file}: the request needed more than ${ms} ms of work and was stopped`);
    this.name = 'WorkBudgetExceeded';
  }
}

/**
 * Work too long for one request that is kept where it stopped (a list a store builds once per file): the route
 * answers 202 with the progress, like a `.vis` being indexed, and the client's next request continues it.
 */
export class WorkInProgress extends WorkBudgetExceeded {
  constructor(
    file: string,
    readonly done: number,
    readonly total: number,
  ) {
    super(file, 0);
    this.name = 'WorkInProgress';
  }
}

/** Milliseconds left of the current request's budget; Infinity outside a request. */
export function budgetLeftMs(): number {
  return deadline === Infinity ? Infinity : deadline - performance.now();
}

/** Default per-request budget: ~2 s, the bound, well above any answer the benchmarks measure. */
export const DEFAULT_WORK_BUDGET_MS = 2000;

let deadline = Infinity;
let budgetMs = 0;
let budgetFile = '';
let calls = 0;
let cancelFlag: Int32Array | null = null;

/**
 * Runs `fn` with a deadline `ms` from now; budgets do not nest (the outer one stays). `cancelled` (shared memory, set
 * non-zero by another thread) stops the work early like a passed deadline: the find worker's client went away.
 */
export function withWorkBudget<T>(file: string, ms: number, fn: () => T, cancelled?: Int32Array): T {
  if (deadline !== Infinity) return fn();
  deadline = performance.now() + ms;
  budgetMs = ms;
  budgetFile = file;
  cancelFlag = cancelled ?? null;
  try {
    return fn();
  } finally {
    deadline = Infinity;
    cancelFlag = null;
  }
}

/** Throws WorkBudgetExceeded once the current request's deadline has passed; reads the clock every 64th call. */
export function checkBudget(): void {
  if (deadline === Infinity || (++calls & 63) !== 0) return;
  if (performance.now() > deadline || (cancelFlag !== null && Atomics.load(cancelFlag, 0) !== 0)) {
    throw new WorkBudgetExceeded(budgetFile, budgetMs);
  }
}
