import { createRequire } from 'node:module';
import type cliProgress from 'cli-progress';

/**
 * The stderr progress bar of `probeboard graph`: shown only once a run has taken more than a second (short runs
 * stay quiet), never with `--quiet`. Work is synchronous, so the bar advances between graphs, not within one.
 */
export class RunProgress {
  private bar: cliProgress.SingleBar | null = null;
  private done = 0;
  private nodes = 0;
  private readonly startedAt = Date.now();

  constructor(
    private readonly total: number,
    private readonly quiet: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  /** One unit of work finished (a graph built, compared or written). */
  tick(label: string, nodes = 0): void {
    this.done++;
    this.nodes += nodes;
    if (!this.bar && !this.quiet && Date.now() - this.startedAt > 1000) {
      // Loaded only when a bar is shown (runs of a second or more).
      const bars = createRequire(import.meta.url)('cli-progress') as typeof cliProgress;
      this.bar = new bars.SingleBar(
        {
          stream: this.stream,
          format: 'graph [{bar}] {value}/{total} {label} | {nodes} nodes',
          hideCursor: true,
          clearOnComplete: true,
        },
        bars.Presets.shades_classic,
      );
      this.bar.start(this.total, this.done, { label, nodes: this.nodes });
    }
    this.bar?.update(this.done, { label, nodes: this.nodes });
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}
