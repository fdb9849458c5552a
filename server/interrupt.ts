/**
 * A command stopped by Ctrl-C or `kill` (through an AbortSignal) after it removed what it had written: the CLI
 * prints one line and exits with the shell's code for the signal (130 for SIGINT, 143 for SIGTERM).
 */
export class RunInterrupted extends Error {
  readonly exitCode: number;

  constructor(readonly signalName: string) {
    super(`interrupted (${signalName}); nothing was written`);
    this.name = 'RunInterrupted';
    this.exitCode = signalName === 'SIGTERM' ? 143 : 130;
  }
}

/** An AbortController aborted by SIGINT or SIGTERM (its reason: the signal's name) until `release()`. */
export function abortOnSignals(): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => controller.abort(name);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * `work`, or a RunInterrupted rejection as soon as `signal` aborts, whichever comes first; once interrupted, what
 * `work` still does (it runs on until the process exits) cannot reject unhandled.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(new RunInterrupted(String(signal.reason)));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RunInterrupted(String(signal.reason)));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * A turn of the event loop. A run that never waits for I/O (a `.vis` export, a statistics compare) is otherwise one
 * long task in which a Ctrl-C is never seen: the run awaits this between its phases, so the signal's handler runs.
 */
export function yieldToEvents(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
