import { describeShared, sharedDataDir } from '../helpers/shared.js';
import { goldenTests } from './graphGolden.js';

// The original tool's output for every compare case of ../shared/data/golden (msprobe-format.md §9).
describeShared('probeboard graph: compare goldens (shared data)', () => {
  goldenTests(sharedDataDir() ?? '', 'compare', [
    'lm_ms_vs_pt_compare',
    'lm_pt_vs_pt_compare',
    'multistep_compare',
    'synth_2layer_2rank_compare',
    'synth_2layer_compare',
    'synth_2layer_compare_oc_grouped_stack',
  ]);
});
