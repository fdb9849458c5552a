/**
 * The result table's headers per mode (msprobe-compare.md §4.1), exactly as msprobe writes them. The metric names are
 * also the compare columns `graph` writes into NPU items (compare/rows.ts).
 */

export type TableMode = 'summary' | 'md5' | 'all';

const PREFIX = [
  'NPU Name',
  'Bench Name',
  'NPU Dtype',
  'Bench Dtype',
  'NPU Tensor Shape',
  'Bench Tensor Shape',
  'NPU Requires_grad',
  'Bench Requires_grad',
];

const STATS = ['NPU max', 'NPU min', 'NPU mean', 'NPU l2norm', 'Bench max', 'Bench min', 'Bench mean', 'Bench l2norm'];

export const SUMMARY_METRICS = [
  'Max diff',
  'Min diff',
  'Mean diff',
  'L2norm diff',
  'MaxRelativeErr',
  'MinRelativeErr',
  'MeanRelativeErr',
  'NormRelativeErr',
] as const;

export const REAL_METRICS = [
  'Cosine',
  'EucDist',
  'MaxAbsErr',
  'MaxRelativeErr',
  'One Thousandth Err Ratio',
  'Five Thousandths Err Ratio',
] as const;

export function tableHeader(mode: TableMode, stackColumn: boolean): string[] {
  const stack = stackColumn ? ['NPU_Stack_Info'] : [];
  if (mode === 'summary') {
    return [...PREFIX, ...SUMMARY_METRICS, ...STATS, 'Requires_grad Consistent', 'Result', 'Err_message', ...stack];
  }
  if (mode === 'md5') return [...PREFIX, 'NPU MD5', 'BENCH MD5', 'Requires_grad Consistent', 'Result', ...stack];
  return [...PREFIX, ...REAL_METRICS, ...STATS, 'Requires_grad Consistent', 'Accuracy Reached or Not', 'Err_message', ...stack, 'Data_name'];
}

/** Column positions used by highlight rules and the advisor. */
export interface ColumnIndex {
  npuName: number;
  npuMax: number;
  npuMin: number;
  benchMax: number;
  /** Max diff (summary) / MaxAbsErr (all). */
  maxDiff: number;
  maxRelativeErr: number;
  oneThousandth: number;
  cosine: number;
  result: number;
  errMessage: number;
  requiresGradConsistent: number;
}

export function columnIndex(header: string[]): ColumnIndex {
  const at = (h: string) => header.indexOf(h);
  return {
    npuName: at('NPU Name'),
    npuMax: at('NPU max'),
    npuMin: at('NPU min'),
    benchMax: at('Bench max'),
    maxDiff: at('Max diff') >= 0 ? at('Max diff') : at('MaxAbsErr'),
    maxRelativeErr: at('MaxRelativeErr'),
    oneThousandth: at('One Thousandth Err Ratio'),
    cosine: at('Cosine'),
    result: at('Result') >= 0 ? at('Result') : at('Accuracy Reached or Not'),
    errMessage: at('Err_message'),
    requiresGradConsistent: at('Requires_grad Consistent'),
  };
}
