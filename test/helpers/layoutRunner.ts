import { inlineLayoutRunner, type LayoutRunner } from '../../src/app/pane/layoutRunner.js';

/** Lays out in-thread like the tests' default runner, and records the group ids of every batch it was asked for. */
export function recordingRunner(): LayoutRunner & { batches: string[][] } {
  const batches: string[][] = [];
  return {
    batches,
    run: (groups, params) => {
      batches.push(groups.map((g) => g.id));
      return inlineLayoutRunner.run(groups, params);
    },
    dispose: () => {},
  };
}
