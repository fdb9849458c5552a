import { describeShared, sharedDataDir } from '../helpers/shared.js';
import { goldenTests } from './graphGolden.js';

// The original tool's output for every build case of ../shared/data/golden (msprobe-format.md §9).
describeShared('probeboard graph: build goldens (shared data)', () => {
  goldenTests(sharedDataDir() ?? '', 'build', [
    'builder_build',
    'lm_mindspore_build',
    'lm_pytorch_build',
    'multistep_build',
    'synth_2layer_build',
  ]);
});
