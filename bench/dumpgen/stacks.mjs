// stack.json content (msprobe-format.md §1.6): one call stack per forward dump entry, innermost frame first, in the
// "File {path}, line {n}, in {func}, \n {code}" form msprobe writes. A call site (class + position inside its forward)
// always yields the same frames, so layer 0 and layer 95 share stacks, as in a real model: that is what makes the
// grouped format worth having.
import { hashSeed } from './random.mjs';

const NET = '/path_to_net/third_party/Megatron-LM';
const TORCH = '/path_to_package/site-packages/torch';

/** Source file of each module class. */
const CLASS_FILES = {
  Float16Module: `${NET}/megatron/core/transformer/module.py`,
  GPTModel: `${NET}/megatron/core/models/gpt/gpt_model.py`,
  LanguageModelEmbedding: `${NET}/megatron/core/models/common/embeddings/language_model_embedding.py`,
  RotaryEmbedding: `${NET}/megatron/core/models/common/embeddings/rotary_pos_embedding.py`,
  VocabParallelEmbedding: `${NET}/megatron/core/tensor_parallel/layers.py`,
  ColumnParallelLinear: `${NET}/megatron/core/tensor_parallel/layers.py`,
  RowParallelLinear: `${NET}/megatron/core/tensor_parallel/layers.py`,
  TransformerBlock: `${NET}/megatron/core/transformer/transformer_block.py`,
  TransformerLayer: `${NET}/megatron/core/transformer/transformer_layer.py`,
  SelfAttention: `${NET}/megatron/core/transformer/attention.py`,
  DotProductAttention: `${NET}/megatron/core/transformer/dot_product_attention.py`,
  MLP: `${NET}/megatron/core/transformer/mlp.py`,
  RMSNorm: `${NET}/megatron/legacy/model/rms_norm.py`,
  Dropout: `${TORCH}/nn/modules/dropout.py`,
};

/** Frames below the model: the training loop (same for every entry). */
const LOOP_FRAMES = [
  `File ${NET}/megatron/core/pipeline_parallel/schedules.py, line 193, in forward_step, \n output_tensor, loss_func = forward_step_func(data_iterator, model)`,
  `File ${NET}/megatron/core/pipeline_parallel/schedules.py, line 452, in forward_backward_no_pipelining, \n output_tensor = forward_step(`,
  `File ${NET}/megatron/training/training.py, line 624, in train_step, \n losses_reduced = forward_backward_func(`,
  `File ${NET}/megatron/training/training.py, line 1099, in train, \n train_step(forward_step_func,`,
  'File /path_to_net/pretrain_gpt.py, line 261, in <module>, \n pretrain(',
];

const CALL_IMPL = [
  `File ${TORCH}/nn/modules/module.py, line 1568, in _call_impl, \n result = forward_call(*args, **kwargs)`,
  `File ${TORCH}/nn/modules/module.py, line 1518, in _wrapped_call_impl, \n return self._call_impl(*args, **kwargs)`,
];

const OPERATORS = {
  __add__: '+', __mul__: '*', __truediv__: '/', __sub__: '-', __lt__: '<', __eq__: '==', __ge__: '>=',
};

/** Source text of an API call, e.g. `out = F.linear(x)`, `out = x * y`. @param {string} base e.g. "Tensor.__mul__" */
function apiCode(base) {
  const [prefix, api] = base.split('.');
  if (prefix === 'Tensor') {
    const op = OPERATORS[/** @type {keyof typeof OPERATORS} */ (api)];
    if (op) return `out = x ${op} y`;
    if (api === '__getitem__') return 'out = x[..., :half]';
    if (api === '__neg__') return 'out = -x';
    return `out = x.${api}()`;
  }
  const module = { Torch: 'torch', Functional: 'F', Distributed: 'torch.distributed' }[prefix] ?? prefix.toLowerCase();
  return `out = ${module}.${api}(x)`;
}

/**
 * @typedef {object} OpenModule
 * @property {string} cls
 * @property {string} attr  last path segment (the attribute name in the parent module)
 * @property {string} site  where its parent's forward calls it (the same for every iteration of a loop)
 */

/** @param {string | null} cls @param {string} site @param {string} code */
function siteFrame(cls, site, code) {
  if (cls === null) {
    const line = 100 + (hashSeed('top', site) % 200);
    return `File /path_to_net/pretrain_gpt.py, line ${line}, in forward_step, \n ${code}`;
  }
  const file = CLASS_FILES[/** @type {keyof typeof CLASS_FILES} */ (cls)] ?? `${NET}/megatron/core/${cls.toLowerCase()}.py`;
  const line = 40 + (hashSeed(cls, site) % 1400);
  return `File ${file}, line ${line}, in forward, \n ${code}`;
}

/**
 * Where a call sits in its caller's source: its position, except that modules held in a list (`layers.0`, `layers.1`)
 * are all called from the same line of a loop.
 * @param {number} ordinal position of the call inside the caller's forward
 * @param {string | null} attr the callee module's attribute name (null for APIs)
 */
export function callSite(ordinal, attr) {
  return attr !== null && /^\d+$/.test(attr) ? 'loop' : String(ordinal);
}

/** @param {string} attr */
function moduleCode(attr) {
  return /^\d+$/.test(attr) ? 'hidden_states = layer(hidden_states)' : `hidden_states = self.${attr}(hidden_states)`;
}

/**
 * The stack of a call made at `site` inside the innermost of `open` (outermost first).
 * @param {OpenModule[]} open
 * @param {string} site
 * @param {{ api: string } | { attr: string }} callee
 */
export function stackFor(open, site, callee) {
  const code = 'api' in callee ? apiCode(callee.api) : moduleCode(callee.attr);
  const inner = open.length ? open[open.length - 1].cls : null;
  const frames = [siteFrame(inner, site, code)];
  for (let i = open.length - 1; i >= 0; i--) {
    const parent = i > 0 ? open[i - 1].cls : null;
    // The outermost module is called from the training loop directly (no _call_impl frames in msprobe's filtered view).
    if (parent === null) break;
    frames.push(...CALL_IMPL, siteFrame(parent, open[i].site, moduleCode(open[i].attr)));
  }
  frames.push(...LOOP_FRAMES);
  return frames;
}

/**
 * stack.json value in the old shape `{name: frames}` or the grouped shape `{"0": [[names], frames], …}` (2025-05+),
 * groups in order of first appearance.
 * @param {Map<string, string[]>} stacks
 * @param {'old' | 'grouped'} format
 */
export function stackJson(stacks, format) {
  if (format === 'old') return stacks;
  /** @type {Map<string, { names: string[], frames: string[] }>} */
  const groups = new Map();
  for (const [name, frames] of stacks) {
    const key = frames.join('\u0000');
    const g = groups.get(key);
    if (g) g.names.push(name);
    else groups.set(key, { names: [name], frames });
  }
  const out = new Map();
  let i = 0;
  for (const g of groups.values()) out.set(String(i++), [g.names, g.frames]);
  return out;
}
