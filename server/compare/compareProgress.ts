import readline from 'node:readline';
import cliProgress from 'cli-progress';

/**
 * Progress of a compare run, reported by phase: the dump.json files being read (bytes of both sides) and the
 * result table being written (rows, metrics included). The CLI shows it as a stderr bar; library callers and tests
 * may pass any listener.
 */
export type CompareProgress = (phase: ComparePhase, done: number, total: number) => void;
export type ComparePhase = 'read' | 'rows';

/**
 * The stderr bar of `probeboard compare`, in the manner of `probeboard graph`'s (server/graph/progress.ts, whose
 * tick-per-graph counter does not fit a run measured in bytes and rows): shown only once a run has taken more than
 * a second, never with `--quiet`, never on a stream that is not a terminal (cli-progress's default).
 */
export class CompareProgressBar {
  private bar: cliProgress.SingleBar | null = null;
  private readonly startedAt = Date.now();

  constructor(
    private readonly quiet: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly delayMs = 1000,
  ) {}

  readonly update: CompareProgress = (phase, done, total) => {
    if (this.quiet) return;
    if (!this.bar) {
      if (Date.now() - this.startedAt <= this.delayMs) return;
      this.bar = new cliProgress.SingleBar(
        {
          stream: this.stream,
          format: 'compare [{bar}] {percentage}% | {what}',
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(total, done, { what: describe(phase, done, total) });
    }
    // A new phase, or the next rank's table.
    if (total !== this.bar.getTotal()) this.bar.setTotal(total);
    this.bar.update(done, { what: describe(phase, done, total) });
  };

  /** Clears the bar's line so that a warning written next starts at column 0; the bar redraws on its next update. */
  clearLine(): void {
    if (!this.bar || !this.stream.isTTY) return;
    readline.cursorTo(this.stream, 0);
    readline.clearLine(this.stream, 0);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}

function describe(phase: ComparePhase, done: number, total: number): string {
  if (phase === 'read') return `reading dump.json ${(done / 1e6).toFixed(0)}/${(total / 1e6).toFixed(0)} MB`;
  return `writing rows ${done}/${total}`;
}
