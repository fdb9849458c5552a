import type { GraphMeta } from '../../src/core/api/types.js';

/**
 * What test/fixtures/vis/mock_compare_statis_graph.vis says about itself (msprobe-format.md §5.2), checked through
 * the store and through HTTP alike.
 */
export const LEGACY_COMPARE_META = {
  graphType: 'compare',
  task: 'summary',
  microSteps: 5,
  overflowCheck: true,
  roots: { npu: 'AddThree_0', bench: 'AddThree_0' },
  nodeCounts: { npu: 12, bench: 10 },
} satisfies Partial<GraphMeta>;
