/**
 * Work a store started for a request and would rather finish before the next one asks (the `.vis.db` worst table's
 * row scan, visDb/ratedScan.ts): the find worker runs one short step of it whenever it has no request to answer, so
 * a list the viewer polls for (202) is read at full speed between polls. Outside the worker nothing runs it and the
 * work goes on request by request.
 */

/** One step of at most `maxMs`; true when the work is done (or can no longer be done). */
export type IdleStep = (maxMs: number) => boolean;

const pending = new Set<IdleStep>();

export function continueWhenIdle(step: IdleStep): void {
  pending.add(step);
}

/** Runs one step of the oldest pending work; whether any remains. */
export function runIdleStep(maxMs: number): boolean {
  const step = pending.values().next().value;
  if (!step) return false;
  let done = true;
  try {
    done = step(maxMs);
  } catch {
    // The request that needs the work meets the problem again and reports it.
  }
  if (done) pending.delete(step);
  return pending.size > 0;
}
