// What a node of a summary compare holds (msprobe-format.md §4.1, §4.3): formatted statistics per input/output,
// compare columns and precision_index on the NPU side, stack frames, the matched link. Values come from small pools of
// pre-formatted strings, so generating gigabytes is a matter of concatenation, not number formatting.
import { Rng } from '../dumpgen/random.mjs';

const POOL = 4096;
const STACKS = [
  ['File /home/user/megatron/model/transformer.py, line 615, in forward, \n output = self.mlp(layernorm_output)'],
  [
    'File /home/user/megatron/model/transformer.py, line 412, in forward, \n query_layer = self.query(hidden_states)',
    'File /usr/lib/python3/site-packages/torch/nn/modules/module.py, line 1501, in _call_impl, \n return forward_call(*args, **kwargs)',
  ],
  ['File /home/user/train.py, line 10, in forward, \n x = x + 1 # "residual"'],
];

/** Python json.dumps (ensure_ascii) of a string. @param {string} s */
export function pyStr(s) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += s[i];
  }
  return `${out}"`;
}

export const TOOL_TIP = pyStr(
  JSON.stringify({
    'Max diff': 'NPU与标杆API统计信息比对，最大值的差值',
    'Min diff': 'NPU与标杆API统计信息比对，最小值的差值',
    'Mean diff': 'NPU与标杆API统计信息比对，平均值的差值',
    'L2norm diff': 'NPU与标杆API统计信息比对，2范数（平方根）的差值',
  }).replace(/":"/g, '": "').replace(/","/g, '", "'),
);

export const COLORS = [
  ['#FFFCF3', [0, 0.2], '此节点所有输入输出的统计量相对误差, 值越大代表测量值与标杆值的偏差越大'],
  ['#FFEDBE', [0.2, 0.4], '此节点所有输入输出的统计量相对误差, 值越大代表测量值与标杆值的偏差越大'],
  ['#FFDC7F', [0.4, 0.6], '此节点所有输入输出的统计量相对误差, 值越大代表测量值与标杆值的偏差越大'],
  ['#FFC62E', [0.6, 0.8], '此节点所有输入输出的统计量相对误差, 值越大代表测量值与标杆值的偏差越大'],
  ['#FF704D', [0.8, 1], '此节点所有输入输出的统计量相对误差, 值越大代表测量值与标杆值的偏差越大'],
  ['#C7C7C7', [], '比对过程中节点未匹配上'],
];

/** The parts of one node that vary: computed once, rendered as `.vis` text or `.vis.db` columns. */
export class NodeContent {
  /** @param {number} seed */
  constructor(seed) {
    this.rng = new Rng(seed);
    const r = this.rng;
    const fmt = (/** @type {number} */ x) => x.toFixed(6).replace(/0+$/, '').replace(/\.$/, '.0');
    this.stats = Array.from({ length: POOL }, () => fmt(r.gauss() * 3));
    this.norms = Array.from({ length: POOL }, () => fmt(Math.abs(r.gauss()) * 200));
    this.diffs = Array.from({ length: POOL }, () => fmt(r.gauss() * 0.01));
    this.rel = Array.from({ length: POOL }, () => `${fmt(Math.abs(r.gauss()) * 2)}%`);
    this.shapes = ['[4096, 4096]', '[1, 4096, 4096]', '[32, 128, 4096]', '[4096]', '[11008, 4096]'];
  }

  /**
   * NPU precision_index: mostly small, a tail of suspicious nodes, a few unmatched (null) and NaN ones.
   * @returns {number | null}
   */
  precision() {
    const u = this.rng.next();
    if (u < 0.03) return null;
    if (u < 0.031) return NaN;
    if (u < 0.9) return Math.round(this.rng.next() * 0.2 * 1e12) / 1e12;
    if (u < 0.99) return Math.round(this.rng.uniform(0.2, 1) * 1e12) / 1e12;
    return 1;
  }

  stack() {
    return STACKS[this.rng.int(STACKS.length)];
  }

  /**
   * One formatted item as [key, string value] pairs, in msprobe's key order.
   * @param {boolean} compare  NPU side of a compare: the diff columns follow the statistics
   * @returns {Array<[string, string]>}
   */
  item(compare) {
    const r = this.rng;
    const pick = (/** @type {string[]} */ pool) => pool[r.u32() & (POOL - 1)];
    /** @type {Array<[string, string]>} */
    const pairs = [
      ['type', 'torch.Tensor'],
      ['dtype', 'torch.bfloat16'],
      ['shape', this.shapes[r.int(this.shapes.length)]],
      ['Max', pick(this.stats)],
      ['Min', pick(this.stats)],
      ['Mean', pick(this.stats)],
      ['Norm', pick(this.norms)],
      ['requires_grad', 'True'],
      ['data_name', '-1'],
    ];
    if (compare) {
      pairs.push(
        ['Max diff', pick(this.diffs)],
        ['Min diff', pick(this.diffs)],
        ['Mean diff', pick(this.diffs)],
        ['L2norm diff', pick(this.diffs)],
        ['MaxRelativeErr', pick(this.rel)],
        ['MinRelativeErr', pick(this.rel)],
        ['MeanRelativeErr', pick(this.rel)],
        ['NormRelativeErr', pick(this.rel)],
        ['Requires_grad Consistent', 'True'],
      );
    }
    return pairs;
  }
}

/** Python repr of a float as json.dumps writes it (NaN stays a bare token). @param {number} x */
export function pyFloat(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (Number.isInteger(x)) return `${x}`;
  // Python switches to exponent notation below 1e-4 (JS only below 1e-6) and pads the exponent to two digits.
  if (Math.abs(x) < 1e-4) return x.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  return String(x);
}
