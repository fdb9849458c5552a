import { pyJsonString } from '../formats/pyJsonWrite.js';
import type { DumpMode } from './mode.js';

/**
 * The `Colors` legend and the `ToolTip` string of a compare file (msprobe-format.md §3.9, §3.10), with the exact
 * Chinese texts of msprobe's `node_colors.py` / `ToolTip`.
 */

export interface ColorBucket {
  /** `[lo, hi]`, left-closed/right-open; `[]` for the "not matched" grey. */
  value: number[];
  description: string;
}

const TIP_ONE_THOUSANDTH =
  'Tensor中的元素逐个与对应的标杆数据对比，相对误差小于千分之一的比例占总元素个数的比例，比例越接近1越好';
const TIP_FIVE_THOUSANDTHS =
  'Tensor中的元素逐个与对应的标杆数据对比，相对误差小于千分之五的比例占总元素个数的比例，比例越接近1越好';
const TIP_COSINE =
  '通过计算两个向量的余弦值来判断其相似度，数值越接近于1说明计算出的两个张量越相似，实际可接受阈值为大于0.99。' +
  '在计算中可能会存在nan，主要由于可能会出现其中一个向量为0';
const TIP_MAX_ABS_ERR = '当最大绝对误差越接近0表示其计算的误差越小，实际可接受阈值为小于0.001';
const TIP_MAX_RELATIVE_ERR =
  '当最大相对误差越接近0表示其计算的误差越小。' +
  '当dump数据中存在0或Nan时，比对结果中最大相对误差则出现inf或Nan的情况，属于正常现象';

const SUMMARY_DESCRIPTION =
  '此节点所有输入输出的统计量相对误差, 值越大代表测量值与标杆值的偏差越大, 相对误差计算方式:|(测量值-标杆值)/标杆值|';
const REAL_DATA_DESCRIPTION =
  '此节点所有输入的最小双千分之一和所有输出的最小双千分之一的差值的绝对值, 代表双千指标的变化情况, ' +
  `值越大代表测量值与标杆值的偏差越大, 双千分之一指标计算方式：${TIP_ONE_THOUSANDTH}`;
const MD5_DESCRIPTION_DIFFERENT = '与标杆相比, 此节点任意输入输出的md5值不同';
const MD5_DESCRIPTION_SAME = '与标杆相比, 此节点所有输入输出的md5值相同';
const NOT_MATCHED = '比对过程中节点未匹配上';

type Ranges = Partial<Record<'summary' | 'all' | 'md5', ColorBucket>>;

// Row order of node_colors.py: YELLOW_1, YELLOW_2, ORANGE_1, ORANGE_2, RED, then GREY for every mode.
const BUCKETS: Array<[string, Ranges]> = [
  [
    '#FFFCF3',
    {
      summary: { value: [0, 0.2], description: SUMMARY_DESCRIPTION },
      all: { value: [0, 0.05], description: REAL_DATA_DESCRIPTION },
      md5: { value: [1, 1], description: MD5_DESCRIPTION_SAME },
    },
  ],
  [
    '#FFEDBE',
    {
      summary: { value: [0.2, 0.4], description: SUMMARY_DESCRIPTION },
      all: { value: [0.05, 0.1], description: REAL_DATA_DESCRIPTION },
    },
  ],
  [
    '#FFDC7F',
    {
      summary: { value: [0.4, 0.6], description: SUMMARY_DESCRIPTION },
      all: { value: [0.1, 0.15], description: REAL_DATA_DESCRIPTION },
    },
  ],
  [
    '#FFC62E',
    {
      summary: { value: [0.6, 0.8], description: SUMMARY_DESCRIPTION },
      all: { value: [0.15, 0.2], description: REAL_DATA_DESCRIPTION },
    },
  ],
  [
    '#FF704D',
    {
      summary: { value: [0.8, 1], description: SUMMARY_DESCRIPTION },
      all: { value: [0.2, 1], description: REAL_DATA_DESCRIPTION },
      md5: { value: [0, 0], description: MD5_DESCRIPTION_DIFFERENT },
    },
  ],
];

/** `Colors` / `tb_config.node_colors` for a compare run; structure mode has only the grey entry. */
export function nodeColors(mode: DumpMode): Record<string, ColorBucket> {
  const out: Record<string, ColorBucket> = {};
  for (const [hex, ranges] of BUCKETS) {
    const bucket = mode === 'structure' ? undefined : ranges[mode];
    if (bucket) out[hex] = { value: [...bucket.value], description: bucket.description };
  }
  out['#C7C7C7'] = { value: [], description: NOT_MATCHED };
  return out;
}

/** Python `json.dumps` of a flat str → str dict: `", "`/`": "` separators, non-ASCII as `\uXXXX`. */
export function pyJsonDumpsStrings(entries: Array<[string, string]>): string {
  return `{${entries.map(([k, v]) => `${pyJsonString(k)}: ${pyJsonString(v)}`).join(', ')}}`;
}

/** The `ToolTip` value: a JSON-encoded string (not an object), exactly as msprobe's `json.dumps(tips)`. */
export function toolTip(mode: DumpMode): string {
  if (mode === 'summary') {
    return pyJsonDumpsStrings([
      ['Max diff', 'NPU与标杆API统计信息比对，最大值的差值'],
      ['Min diff', 'NPU与标杆API统计信息比对，最小值的差值'],
      ['Mean diff', 'NPU与标杆API统计信息比对，平均值的差值'],
      ['L2norm diff', 'NPU与标杆API统计信息比对，2范数（平方根）的差值'],
    ]);
  }
  if (mode === 'md5') return pyJsonDumpsStrings([['md5', '数据MD5信息，用于比较两个数据信息是否完全一致']]);
  return pyJsonDumpsStrings([
    ['One Thousandth Err Ratio', TIP_ONE_THOUSANDTH],
    ['Five Thousandths Err Ratio', TIP_FIVE_THOUSANDTHS],
    ['Cosine', TIP_COSINE],
    ['MaxAbsErr', TIP_MAX_ABS_ERR],
    ['MaxRelativeErr', TIP_MAX_RELATIVE_ERR],
  ]);
}
