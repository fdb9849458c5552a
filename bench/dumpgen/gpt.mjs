// A Megatron-core GPT forward step, written as the sequence of module and API calls msprobe would hook: embedding,
// rotary embedding, N transformer layers (input_layernorm, self_attention{linear_qkv, core_attention, linear_proj},
// post_attention_layernorm, mlp{linear_fc1, swiglu, linear_fc2}), final norm, output layer, loss. Top-level data
// preparation and loss APIs land between modules (→ Apis_Between_Modules groups in the graph).
// `fused` swaps RMSNorm, rotary embedding and core attention for the single torch_npu kernels MindSpeed calls on Ascend
// (NPU.npu_rms_norm, NPU.npu_rotary_mul, NPU.npu_fusion_attention): the same model in 40 % of the nodes.
import { py } from './tracer.mjs';

/**
 * @typedef {object} GptConfig
 * @property {number} layers
 * @property {number} seq
 * @property {number} hidden
 * @property {number} heads
 * @property {number} ffn
 * @property {number} vocab
 * @property {number} ranks  tensor-parallel group size (adds all_reduce collectives when > 1)
 * @property {string} act    dtype of activations ("torch.bfloat16"; "torch.float32" when writing npy)
 * @property {string} probs  dtype of attention probabilities
 * @property {boolean} fused  torch_npu fused kernels instead of their unfused PyTorch decomposition
 * @property {boolean} overflow  inject inf/NaN into the first bad layer's attention scores (NPU side)
 * @property {number} overflowLayer
 */

const F32 = 'torch.float32';
const I64 = 'torch.int64';
const BOOL = 'torch.bool';

/** @typedef {import('./tracer.mjs').Tracer} Tracer */
/** @typedef {import('./tensors.mjs').TensorRef} TensorRef */

/** @param {GptConfig} c */
function processGroup(c) {
  const ranks = Array.from({ length: c.ranks }, (_, i) => i);
  // msprobe's group_id is the crc32 of str(group_ranks), e.g. "[0, 1]" → 77849d8c.
  return { type: 'torch.ProcessGroup', group_ranks: ranks.map(BigInt), group_id: crc32Hex(`[${ranks.join(', ')}]`) };
}

/** @param {string} s */
function crc32Hex(s) {
  let crc = 0xffffffff;
  for (let i = 0; i < s.length; i++) {
    crc ^= s.charCodeAt(i);
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ((crc ^ 0xffffffff) >>> 0).toString(16).padStart(8, '0');
}

/** @param {Tracer} t @param {GptConfig} c @param {TensorRef} y */
function allReduce(t, c, y) {
  if (c.ranks > 1) t.api('Distributed.all_reduce', [y], { group: processGroup(c) }, [null], { grad: false });
}

/** @param {Tracer} t @param {string} path @param {TensorRef} x @param {GptConfig} c */
function rmsNorm(t, path, x, c) {
  const w = t.weight(`${path}.weight`, [c.hidden], c.act, 1);
  return t.module(path, 'RMSNorm', [x], { weight: w }, () => {
    if (c.fused) {
      const y = t.act(x.shape, c.act);
      const rstd = t.tensor({ shape: [...x.shape.slice(0, -1), 1], dtype: F32, kind: 'positive', mu: 1, sigma: 0.3, requiresGrad: false, role: 'fwd' });
      t.api('NPU.npu_rms_norm', [x, w], { epsilon: py.float(1e-6) }, [y, rstd]);
      return [y];
    }
    const xf = t.view(x, x.shape, F32);
    t.api('Tensor.float', [x], {}, [xf]);
    const sq = t.tensor({ shape: x.shape, dtype: F32, kind: 'positive', mu: 1, sigma: 1.4, requiresGrad: true, role: 'fwd' });
    t.api('Tensor.pow', [xf, py.int(2)], {}, [sq]);
    const meanShape = [...x.shape.slice(0, -1), 1];
    const ms = t.tensor({ shape: meanShape, dtype: F32, kind: 'positive', mu: 1, sigma: 0.3, requiresGrad: true, role: 'fwd' });
    t.api('Tensor.mean', [sq, py.int(-1)], { keepdim: py.bool(true) }, [ms]);
    const eps = t.view(ms);
    t.api('Tensor.__add__', [ms, py.float(1e-5)], {}, [eps]);
    const r = t.tensor({ shape: meanShape, dtype: F32, kind: 'positive', mu: 1, sigma: 0.3, requiresGrad: true, role: 'fwd' });
    t.api('Torch.rsqrt', [eps], {}, [r]);
    const normed = t.act(x.shape, F32);
    t.api('Tensor.__mul__', [xf, r], {}, [normed]);
    const typed = t.view(normed, x.shape, c.act);
    t.api('Tensor.type_as', [normed, x], {}, [typed]);
    const out = t.act(x.shape, c.act);
    t.api('Tensor.__mul__', [typed, w], {}, [out]);
    return [out];
  })[0];
}

/**
 * @param {Tracer} t @param {string} path @param {'ColumnParallelLinear' | 'RowParallelLinear'} cls
 * @param {TensorRef} x @param {number} out @param {boolean} bias @param {GptConfig} c
 */
function linear(t, path, cls, x, out, bias, c) {
  const inDim = x.shape[x.shape.length - 1];
  const w = t.weight(`${path}.weight`, [out, inDim], c.act);
  const b = bias ? t.weight(`${path}.bias`, [out], c.act) : null;
  /** @type {Record<string, TensorRef>} */
  const params = b ? { weight: w, bias: b } : { weight: w };
  return t.module(path, cls, [x], params, () => {
    const y = t.act([...x.shape.slice(0, -1), out], c.act, 2);
    t.api('Functional.linear', b ? [x, w, b] : [x, w], {}, [y]);
    if (cls === 'RowParallelLinear') allReduce(t, c, y);
    return [y];
  })[0];
}

/** apply_rotary_pos_emb: x * cos + rotate_half(x) * sin. @param {Tracer} t @param {TensorRef} x @param {TensorRef} freqs */
function rotary(t, x, freqs) {
  const half = [...x.shape.slice(0, -1), x.shape[x.shape.length - 1] / 2];
  const cos = t.tensor({ shape: freqs.shape, dtype: F32, kind: 'normal', mu: 0.3, sigma: 0.6, requiresGrad: false, role: 'fwd' });
  t.api('Torch.cos', [freqs], {}, [cos]);
  const sin = t.tensor({ shape: freqs.shape, dtype: F32, kind: 'normal', mu: 0.1, sigma: 0.6, requiresGrad: false, role: 'fwd' });
  t.api('Torch.sin', [freqs], {}, [sin]);
  const xc = t.act(x.shape, x.dtype);
  t.api('Tensor.__mul__', [x, cos], {}, [xc]);
  const x1 = t.act(half, x.dtype);
  t.api('Tensor.__getitem__', [x, py.slice(null, half[half.length - 1], null)], {}, [x1]);
  const x2 = t.act(half, x.dtype);
  t.api('Tensor.__getitem__', [x, py.slice(half[half.length - 1], null, null)], {}, [x2]);
  const neg = t.act(half, x.dtype);
  t.api('Tensor.__neg__', [x2], {}, [neg]);
  const rot = t.act(x.shape, x.dtype);
  t.api('Torch.cat', [[neg, x1]], { dim: py.int(-1) }, [rot]);
  const rs = t.act(x.shape, x.dtype);
  t.api('Tensor.__mul__', [rot, sin], {}, [rs]);
  const out = t.act(x.shape, x.dtype);
  t.api('Tensor.__add__', [xc, rs], {}, [out]);
  return out;
}

/** torch_npu.npu_rotary_mul(x, cos, sin). @param {Tracer} t @param {TensorRef} x @param {TensorRef} freqs */
function fusedRotary(t, x, freqs) {
  const cos = t.tensor({ shape: freqs.shape, dtype: F32, kind: 'normal', mu: 0.3, sigma: 0.6, requiresGrad: false, role: 'fwd' });
  t.api('Torch.cos', [freqs], {}, [cos]);
  const sin = t.tensor({ shape: freqs.shape, dtype: F32, kind: 'normal', mu: 0.1, sigma: 0.6, requiresGrad: false, role: 'fwd' });
  t.api('Torch.sin', [freqs], {}, [sin]);
  const out = t.act(x.shape, x.dtype);
  t.api('NPU.npu_rotary_mul', [x, cos, sin], {}, [out]);
  return out;
}

/** @param {Tracer} t @param {TensorRef} q @param {TensorRef} k @param {TensorRef} v @param {GptConfig} c */
function fusionAttention(t, q, k, v, c) {
  const [S, B, NH, D] = q.shape;
  const out = t.act([S, B, NH * D], c.act);
  const stat = () => t.tensor({ shape: [B, NH, S, 8], dtype: F32, kind: 'positive', mu: 3, sigma: 0.5, requiresGrad: false, role: 'fwd' });
  const [softmaxMax, softmaxSum] = [stat(), stat()];
  t.api(
    'NPU.npu_fusion_attention',
    [q, k, v, py.int(NH), py.str('SBH')],
    { scale: py.float(1 / Math.sqrt(D)), keep_prob: py.float(1), pre_tockens: py.int(65536), next_tockens: py.int(0) },
    [out, softmaxMax, softmaxSum, null, py.int(0), py.int(0), py.int(0)],
  );
  if (c.overflow && t.layer === c.overflowLayer) {
    softmaxMax.overflow = 'inf';
    out.overflow = 'nan';
  }
  return [out];
}

/** @param {Tracer} t @param {string} path @param {TensorRef} q @param {TensorRef} k @param {TensorRef} v @param {GptConfig} c */
function coreAttention(t, path, q, k, v, c) {
  const [S, B, NH, D] = q.shape;
  return t.module(path, 'DotProductAttention', [q, k, v], null, () => {
    if (c.fused) return fusionAttention(t, q, k, v, c);
    const qt = t.view(q, [B, NH, S, D]);
    t.api('Tensor.transpose', [q, py.int(0), py.int(2)], {}, [qt]);
    const kt = t.view(k, [B, NH, D, S]);
    t.api('Tensor.transpose', [k, py.int(0), py.int(3)], {}, [kt]);
    const scores = t.act([B, NH, S, S], c.act, 4);
    t.api('Torch.matmul', [qt, kt], {}, [scores]);
    const scaled = t.act([B, NH, S, S], c.act, 0.5);
    t.api('Tensor.__truediv__', [scores, py.float(Math.sqrt(D))], {}, [scaled]);
    const probs = t.tensor({ shape: [B, NH, S, S], dtype: c.probs, kind: 'prob', mu: 1 / S, sigma: 1.2, requiresGrad: true, role: 'fwd' });
    t.api('Functional.softmax', [scaled], { dim: py.int(-1) }, [probs]);
    if (c.overflow && t.layer === c.overflowLayer) {
      scores.overflow = 'inf';
      scaled.overflow = 'inf';
      probs.overflow = 'nan';
    }
    const dropped = t.module(`${path}.attention_dropout`, 'Dropout', [probs], null, () => {
      const d = t.view(probs);
      t.api('Functional.dropout', [probs, py.float(0)], { training: py.bool(true) }, [d]);
      return [d];
    })[0];
    const vt = t.view(v, [B, NH, S, D]);
    t.api('Tensor.transpose', [v, py.int(0), py.int(2)], {}, [vt]);
    const ctx = t.act([B, NH, S, D], c.act);
    t.api('Torch.matmul', [dropped, vt], {}, [ctx]);
    const perm = t.view(ctx, [S, B, NH, D]);
    t.api('Tensor.permute', [ctx, py.int(2), py.int(0), py.int(1), py.int(3)], {}, [perm]);
    const cont = t.view(perm);
    t.api('Tensor.contiguous', [perm], {}, [cont]);
    const merged = t.view(cont, [S, B, NH * D]);
    t.api('Tensor.view', [cont, py.int(S), py.int(B), py.int(NH * D)], {}, [merged]);
    return [merged];
  })[0];
}

/** @param {Tracer} t @param {string} path @param {TensorRef} x @param {TensorRef} freqs @param {GptConfig} c */
function selfAttention(t, path, x, freqs, c) {
  const [S, B] = x.shape;
  const NH = c.heads;
  const D = c.hidden / NH;
  return t.module(path, 'SelfAttention', [x], null, () => {
    const qkv = linear(t, `${path}.linear_qkv`, 'ColumnParallelLinear', x, 3 * c.hidden, true, c);
    const heads = t.view(qkv, [S, B, NH, 3 * D]);
    t.api('Tensor.view', [qkv, py.int(S), py.int(B), py.int(NH), py.int(3 * D)], {}, [heads]);
    const [q, k, v] = [0, 1, 2].map(() => t.act([S, B, NH, D], c.act));
    t.api('Torch.split', [heads, py.int(D)], { dim: py.int(3) }, [q, k, v]);
    const qr = c.fused ? fusedRotary(t, q, freqs) : rotary(t, q, freqs);
    const kr = c.fused ? fusedRotary(t, k, freqs) : rotary(t, k, freqs);
    const ctx = coreAttention(t, `${path}.core_attention`, qr, kr, v, c);
    return [linear(t, `${path}.linear_proj`, 'RowParallelLinear', ctx, c.hidden, false, c)];
  })[0];
}

/** @param {Tracer} t @param {string} path @param {TensorRef} x @param {GptConfig} c */
function mlp(t, path, x, c) {
  return t.module(path, 'MLP', [x], null, () => {
    const h = linear(t, `${path}.linear_fc1`, 'ColumnParallelLinear', x, 2 * c.ffn, false, c);
    const halfShape = [...x.shape.slice(0, -1), c.ffn];
    const [a, b] = [0, 1].map(() => t.act(halfShape, c.act));
    t.api('Torch.chunk', [h, py.int(2)], { dim: py.int(-1) }, [a, b]);
    const s = t.tensor({ shape: halfShape, dtype: c.act, kind: 'normal', mu: 0.2, sigma: 0.5, requiresGrad: true, role: 'fwd' });
    t.api('Functional.silu', [a], {}, [s]);
    const g = t.act(halfShape, c.act, 0.5);
    t.api('Tensor.__mul__', [s, b], {}, [g]);
    return [linear(t, `${path}.linear_fc2`, 'RowParallelLinear', g, c.hidden, false, c)];
  })[0];
}

/** bias-dropout-add of Megatron's TransformerLayer. @param {Tracer} t @param {TensorRef} x @param {TensorRef} residual @param {GptConfig} c */
function dropoutAdd(t, x, residual, c) {
  const d = t.view(x);
  t.api('Functional.dropout', [x, py.float(0)], { training: py.bool(true) }, [d]);
  const out = t.act(x.shape, c.act);
  t.api('Tensor.__add__', [residual, d], {}, [out]);
  return out;
}

/** @param {Tracer} t @param {string} path @param {number} i @param {TensorRef} x @param {TensorRef} freqs @param {GptConfig} c */
function transformerLayer(t, path, i, x, freqs, c) {
  t.layer = i;
  const out = t.module(path, 'TransformerLayer', [x], null, () => {
    const ln1 = rmsNorm(t, `${path}.input_layernorm`, x, c);
    const attn = selfAttention(t, `${path}.self_attention`, ln1, freqs, c);
    const h = dropoutAdd(t, attn, x, c);
    const ln2 = rmsNorm(t, `${path}.post_attention_layernorm`, h, c);
    const m = mlp(t, `${path}.mlp`, ln2, c);
    return [dropoutAdd(t, m, h, c)];
  })[0];
  return out;
}

/**
 * One micro step's forward pass, recorded into `t`. Returns the loss tensor.
 * @param {Tracer} t @param {GptConfig} c
 */
export function gptForward(t, c) {
  const { seq: S, hidden: H, vocab: V } = c;
  t.layer = -1;
  const ids = (/** @type {number[]} */ shape) => t.tensor({ shape, dtype: I64, kind: 'int', mu: V / 2, sigma: 0, hi: V - 1, requiresGrad: false, role: 'fwd' });
  const batch = ids([1, S + 1]);
  const tokens = ids([1, S]);
  t.api('Tensor.__getitem__', [batch, py.slice(null, null, null)], {}, [tokens], { grad: false });
  const cont = t.view(tokens);
  t.api('Tensor.contiguous', [tokens], {}, [cont], { grad: false });
  const labels = ids([1, S]);
  t.api('Tensor.long', [cont], {}, [labels], { grad: false });
  const eod = t.tensor({ shape: [1, S], dtype: BOOL, kind: 'bool', mu: 0, sigma: 0, requiresGrad: false, role: 'fwd' });
  t.api('Tensor.__eq__', [cont, py.int(0)], {}, [eod], { grad: false });

  const loss = t.module('module', 'Float16Module', [cont], null, () =>
    t.module('module.module', 'GPTModel', [cont], null, () => {
      const emb = t.module('module.module.embedding', 'LanguageModelEmbedding', [cont], null, () => {
        const wPath = 'module.module.embedding.word_embeddings';
        const w = t.weight(`${wPath}.weight`, [V, H], c.act);
        const we = t.module(wPath, 'VocabParallelEmbedding', [cont], { weight: w }, () => {
          if (c.ranks > 1) {
            const mask = t.tensor({ shape: [1, S], dtype: BOOL, kind: 'bool', mu: 0, sigma: 0, requiresGrad: false, role: 'fwd' });
            t.api('Tensor.__lt__', [cont, py.int(0)], {}, [mask], { grad: false });
          }
          const e = t.act([1, S, H], c.act);
          t.api('Functional.embedding', [cont, w], {}, [e]);
          allReduce(t, c, e);
          return [e];
        })[0];
        const tr = t.view(we, [S, 1, H]);
        t.api('Tensor.transpose', [we, py.int(0), py.int(1)], {}, [tr]);
        return t.module('module.module.embedding.embedding_dropout', 'Dropout', [tr], null, () => {
          const d = t.view(tr);
          t.api('Functional.dropout', [tr, py.float(0)], { training: py.bool(true) }, [d]);
          return [d];
        });
      })[0];
      const freqs = t.module('module.module.rotary_pos_emb', 'RotaryEmbedding', [py.int(S)], null, () => {
        const pos = t.tensor({ shape: [S], dtype: F32, kind: 'positive', mu: S / 2, sigma: 0.6, requiresGrad: false, role: 'fwd' });
        t.api('Torch.arange', [py.int(S)], {}, [pos], { grad: false });
        const f = t.tensor({ shape: [S, 1, 1, H / c.heads], dtype: F32, kind: 'positive', mu: 4, sigma: 1.5, requiresGrad: false, role: 'fwd' });
        t.api('Torch.outer', [pos, pos], {}, [f], { grad: false });
        return [f];
      })[0];
      const hidden = t.module('module.module.decoder', 'TransformerBlock', [emb], null, () => {
        let x = emb;
        for (let i = 0; i < c.layers; i++) x = transformerLayer(t, `module.module.decoder.layers.${i}`, i, x, freqs, c);
        t.layer = c.layers;
        return [rmsNorm(t, 'module.module.decoder.final_layernorm', x, c)];
      })[0];
      const logits = linear(t, 'module.module.output_layer', 'ColumnParallelLinear', hidden, V, false, c);
      const bsv = t.view(logits, [1, S, V]);
      t.api('Tensor.transpose', [logits, py.int(0), py.int(1)], {}, [bsv]);
      const lf = t.view(bsv, bsv.shape, F32);
      t.api('Tensor.float', [bsv], {}, [lf]);
      const ce = t.tensor({ shape: [1, S], dtype: F32, kind: 'positive', mu: 2.3, sigma: 0.8, requiresGrad: true, role: 'fwd' });
      t.api('Functional.cross_entropy', [lf, labels], { reduction: py.str('none') }, [ce]);
      return [ce];
    }),
  )[0];

  // loss_func in pretrain_gpt.py: masked mean, outside any module.
  const flat = t.view(loss, [S]);
  t.api('Tensor.view', [loss, py.int(-1)], {}, [flat]);
  const maskF = t.tensor({ shape: [S], dtype: F32, kind: 'positive', mu: 0.9, sigma: 0.3, requiresGrad: false, role: 'fwd' });
  const masked = t.tensor({ shape: [S], dtype: F32, kind: 'positive', mu: 2, sigma: 0.8, requiresGrad: true, role: 'fwd' });
  t.api('Tensor.__mul__', [flat, maskF], {}, [masked]);
  const sum = t.tensor({ shape: [], dtype: F32, kind: 'positive', mu: 2 * S, sigma: 0, requiresGrad: true, role: 'fwd' });
  t.api('Torch.sum', [masked], {}, [sum]);
  const mean = t.tensor({ shape: [], dtype: F32, kind: 'positive', mu: 2.2, sigma: 0, requiresGrad: true, role: 'fwd' });
  t.api('Tensor.__truediv__', [sum, py.int(S)], {}, [mean]);
  return mean;
}
