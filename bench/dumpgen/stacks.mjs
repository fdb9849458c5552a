// stack.json content (msprobe-format.md §1.6): one call stack per forward dump entry, innermost frame first, in the
// "File {path}, line {n}, in {func}, \n {code}" form msprobe writes. A call site (class + position inside its forward)
// always yields the same frames, so layer 0 and layer 95 share stacks, as in a real model: that is what makes the
// grouped format worth having. `distinct` stacks are what msprobe's collector writes for a model whose layers are called
// from lines of their own (an unrolled or fx-traced forward): every API's stack differs (issue 19), while most frames
// still repeat across stacks; they also carry the collector's own frames and helper / recompute frames (depth 7–31).
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

/** @param {string | null} cls */
function classFile(cls) {
  return CLASS_FILES[/** @type {keyof typeof CLASS_FILES} */ (cls)] ?? `${NET}/megatron/core/${String(cls).toLowerCase()}.py`;
}

/** @param {string | null} cls @param {string} site @param {string} code */
function siteFrame(cls, site, code) {
  if (cls === null) {
    const line = 100 + (hashSeed('top', site) % 200);
    return `File /path_to_net/pretrain_gpt.py, line ${line}, in forward_step, \n ${code}`;
  }
  // An unrolled layer call (`distinct` stacks): one line per layer, so no two layers share it.
  const line = site.startsWith('layer') ? 200 + 2 * Number(site.slice(5)) : 40 + (hashSeed(cls, site) % 1400);
  return `File ${classFile(cls)}, line ${line}, in forward, \n ${code}`;
}

// What the real collector adds (/work/shared/data/real stacks): an API's innermost frame is msprobe's wrapper, a
// module's the forward hook's call inside torch's _call_impl.
const API_WRAPPER = 'File /path_to_package/site-packages/msprobe/core/data_dump/api_registry.py, line 96, in api_function, \n return api_instance(*args, **kwargs)';
const MODULE_HOOK = `File ${TORCH}/nn/modules/module.py, line 1581, in _call_impl, \n hook_result = hook(self, args, result)`;

/** Helper functions user code calls APIs through (Megatron's fused-op fallbacks, rotary and bias helpers). */
const HELPERS = [
  ['apply_rotary_pos_emb', 'return _apply_rotary_pos_emb_bshd(t, freqs, rotary_interleaved=rotary_interleaved)'],
  ['_apply_rotary_pos_emb_bshd', 't = (t * cos_) + (_rotate_half(t, rotary_interleaved) * sin_)'],
  ['bias_dropout_add', 'return _bias_dropout_add_func(x_with_bias, residual, prob, training)'],
  ['_bias_dropout_add_func', 'out = residual + out'],
  ['linear_with_grad_accumulation_and_async_allreduce', 'return LinearWithGradAccumulationAndAsyncCommunication.apply(*args)'],
  ['forward', 'output = torch.matmul(total_input, weight.t())'],
  ['_forward_impl', 'return self._checked_forward(hidden_states, attention_mask)'],
  ['decorate_autocast', 'return func(*args, **kwargs)'],
];

/**
 * Megatron's full activation recompute around a layer call (`--recompute-granularity full`), innermost first.
 * @param {string} file the TransformerBlock's source
 */
function recomputeFrames(file) {
  return [
    `File ${file}, line 178, in custom_forward, \n hidden_states, context = layer(`,
    `File ${NET}/megatron/core/tensor_parallel/random.py, line 267, in forward, \n outputs = run_function(*args)`,
    `File ${TORCH}/autograd/function.py, line 553, in apply, \n return super().apply(*args, **kwargs)  # type: ignore[misc]`,
    `File ${NET}/megatron/core/tensor_parallel/random.py, line 308, in checkpoint, \n return CheckpointFunction.apply(function, distribute_saved_activations, *args)`,
    `File ${file}, line 231, in _checkpointed_forward, \n hidden_states, context = checkpoint_handler(custom(l, l + 1))`,
  ];
}

/**
 * Where a call sits in its caller's source: its position, except that modules held in a list (`layers.0`, `layers.1`)
 * are all called from the same line of a loop.
 * @param {number} ordinal position of the call inside the caller's forward
 * @param {string | null} attr the callee module's attribute name (null for APIs)
 */
export function callSite(ordinal, attr, distinct = false) {
  if (attr === null || !/^\d+$/.test(attr)) return String(ordinal);
  return distinct ? `layer${attr}` : 'loop';
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
 * @param {boolean} [distinct] the collector's frames, helper calls and recompute frames (see the top of this file)
 */
export function stackFor(open, site, callee, distinct = false) {
  const code = 'api' in callee ? apiCode(callee.api) : moduleCode(callee.attr);
  const inner = open.length ? open[open.length - 1].cls : null;
  const frames = distinct ? ['api' in callee ? API_WRAPPER : MODULE_HOOK] : [];
  if (distinct && 'api' in callee && inner !== null) {
    // 0–4 helper functions between the module's forward and the API call, the same for a call site in every layer.
    const file = classFile(inner);
    const helpers = hashSeed('helpers', inner, site) % 5;
    let call = code;
    for (let k = 0; k < helpers; k++) {
      const [fn, next] = HELPERS[hashSeed(inner, site, k) % HELPERS.length];
      frames.push(`File ${file}, line ${60 + (hashSeed(inner, site, fn) % 900)}, in ${fn}, \n ${call}`);
      call = next;
    }
  }
  frames.push(siteFrame(inner, site, code));
  for (let i = open.length - 1; i >= 0; i--) {
    const parent = i > 0 ? open[i - 1].cls : null;
    // The outermost module is called from the training loop directly (no _call_impl frames in msprobe's filtered view).
    if (parent === null) break;
    frames.push(...CALL_IMPL);
    // Full recompute (Megatron's `--recompute-method block` takes the first N layers of a stage): here every other
    // layer, so that depth varies along the model.
    const layer = open[i].site.startsWith('layer') ? Number(open[i].site.slice(5)) : -1;
    if (layer >= 0 && layer % 2 === 0) frames.push(...recomputeFrames(classFile(parent)));
    frames.push(siteFrame(parent, open[i].site, moduleCode(open[i].attr)));
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
