import path from 'node:path';
import { describe } from 'vitest';
import { repoRoot } from '../helpers/shared.js';
import { goldenTests } from './graphGolden.js';

// The small golden cases, copied into test/fixtures/graph (same layout as ../shared/data) so a plain clone
// checks them too.
const root = path.join(repoRoot, 'test/fixtures/graph');

describe('probeboard graph: goldens in test/fixtures/graph', () => {
  goldenTests(root, 'build', ['builder_build', 'lm_mindspore_build', 'lm_pytorch_build', 'multistep_build']);
  goldenTests(root, 'compare', ['lm_ms_vs_pt_compare', 'lm_pt_vs_pt_compare', 'multistep_compare']);
});
