// Synthetic tensors: a TensorRef is one value flowing through the traced model. It carries a distribution (not data);
// each side (NPU, Bench) renders it into a dump.json descriptor, either from closed-form statistics (statistics task)
// or from real values it generates and writes as .npy (tensor task). Rendering is a pure function of the tensor's seed
// and the side, so a tensor seen twice (producer output, consumer input) gets the same numbers both times.
import { Rng, hashSeed } from './random.mjs';
import { roundToDtype } from './npy.mjs';

/**
 * @typedef {'normal' | 'positive' | 'prob' | 'int' | 'bool'} TensorKind
 * @typedef {'fwd' | 'bwd' | 'param'} TensorRole
 * @typedef {{ max: number | boolean, min: number | boolean, mean: number | null, norm: number | null }} Stats
 */

export class TensorRef {
  /**
   * @param {object} f
   * @param {number} f.id
   * @param {number} f.seed
   * @param {number[]} f.shape
   * @param {string} f.dtype
   * @param {TensorKind} f.kind
   * @param {number} f.mu  mean (int: mean value; positive/prob: mean > 0)
   * @param {number} f.sigma  spread (normal: std; positive: coefficient of variation)
   * @param {number} [f.hi]  int: the largest value
   * @param {boolean} f.requiresGrad
   * @param {TensorRole} f.role
   * @param {number} f.layer  the transformer layer that produced it (-1 before the first, L after the last)
   * @param {TensorRef | null} [f.aliasOf]  views (transpose, view, contiguous) share values with their source
   */
  constructor(f) {
    this.id = f.id;
    this.seed = f.seed;
    this.shape = f.shape;
    this.dtype = f.dtype;
    this.kind = f.kind;
    this.mu = f.mu;
    this.sigma = f.sigma;
    this.hi = f.hi ?? 0;
    this.requiresGrad = f.requiresGrad;
    this.role = f.role;
    this.layer = f.layer;
    /** @type {TensorRef | null} */
    this.aliasOf = f.aliasOf ?? null;
    /** @type {'inf' | 'nan' | null} NPU-side overflow injected for `-oc` demos. */
    this.overflow = null;
  }

  get numel() {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  /** The tensor whose values this one shares. @returns {TensorRef} */
  get source() {
    return this.aliasOf ? this.aliasOf.source : this;
  }
}

/**
 * Closed-form statistics of `t` on a side with relative perturbation `amp` (0 = the NPU values exactly).
 * Perturbing the distribution's parameters (never the four numbers independently) keeps Max ≥ Mean ≥ Min, Norm ≥ 0.
 * @param {TensorRef} t
 * @param {number} amp
 * @param {string} side
 * @returns {Stats}
 */
export function syntheticStats(t, amp, side) {
  const src = t.source;
  const r = new Rng(src.seed);
  const n = src.numel;
  if (src.kind === 'bool') return { max: true, min: false, mean: null, norm: null };
  if (src.kind === 'int') {
    const mean = n === 1 ? src.mu : src.mu * r.uniform(0.85, 1.1);
    const max = n === 1 ? Math.round(mean) : src.hi;
    return { max, min: n === 1 ? max : 0, mean: n === 1 ? max : mean, norm: Math.sqrt(n * (mean * mean + (src.hi * src.hi) / 12)) };
  }
  // Tail widths of n samples: about sqrt(2 ln n) standard deviations, jittered per tensor.
  const tail = n > 1 ? Math.sqrt(2 * Math.log(n)) : 0;
  let zHi = tail * r.uniform(0.8, 1.25);
  let zLo = tail * r.uniform(0.8, 1.25);
  // Positive tensors are given a typical mean; jitter it, and place their minimum at a fraction of it.
  let mu = src.kind === 'normal' ? src.mu : src.mu * r.uniform(0.8, 1.25);
  let low = r.uniform(0.02, 0.4);
  let sigma = src.sigma;
  if (amp > 0) {
    const p = new Rng(hashSeed(src.seed, side));
    mu *= Math.exp(amp * p.gauss());
    sigma *= Math.exp(amp * p.gauss());
    zHi *= Math.exp(amp * p.gauss());
    zLo *= Math.exp(amp * p.gauss());
    low = Math.min(0.95, low * Math.exp(amp * p.gauss()));
  }
  if (src.kind === 'normal') {
    const max = mu + sigma * zHi;
    const min = mu - sigma * zLo;
    return { max, min, mean: mu, norm: Math.sqrt(n * (sigma * sigma + mu * mu)) };
  }
  // positive / prob: values in [lo, hi] around a positive mean; prob (softmax) keeps exact zeros.
  const spread = mu * sigma;
  const min = n === 1 ? mu : src.kind === 'prob' ? 0 : mu * low;
  const max = mu + spread * zHi;
  return { max, min, mean: mu, norm: Math.sqrt(n * (spread * spread + mu * mu)) };
}

/**
 * Real values for `t` on a side (C order), rounded to the dtype, plus their statistics as torch computes them.
 * @param {TensorRef} t
 * @param {number} amp relative per-element noise of this side
 * @param {string} side
 * @param {'inf' | 'nan' | null} overflow put inf / NaN into a few elements (NPU side of the `-oc` demo)
 * @returns {{ values: Float64Array, stats: Stats }}
 */
export function realValues(t, amp, side, overflow) {
  const src = t.source;
  const r = new Rng(src.seed);
  const n = src.numel;
  const values = new Float64Array(n);
  switch (src.kind) {
    case 'bool':
      for (let i = 0; i < n; i++) values[i] = r.next() < 0.5 ? 1 : 0;
      break;
    case 'int':
      for (let i = 0; i < n; i++) values[i] = Math.floor(r.next() * (src.hi + 1));
      break;
    case 'normal':
      for (let i = 0; i < n; i++) values[i] = src.mu + src.sigma * r.gauss();
      break;
    default: {
      // Log-normal with mean mu; prob tensors also get exact zeros (masked / dropped positions).
      const s = Math.min(src.sigma, 1.5);
      for (let i = 0; i < n; i++) values[i] = src.kind === 'prob' && r.next() < 0.1 ? 0 : src.mu * Math.exp(s * r.gauss() - (s * s) / 2);
    }
  }
  if (amp > 0 && (src.kind === 'normal' || src.kind === 'positive' || src.kind === 'prob')) {
    const p = new Rng(hashSeed(src.seed, side));
    for (let i = 0; i < n; i++) values[i] *= 1 + amp * p.gauss();
  }
  if (overflow) for (let i = 0; i < n; i += Math.max(1, Math.floor(n / 3))) values[i] = overflow === 'inf' ? Infinity : NaN;
  roundToDtype(values, t.dtype);
  return { values, stats: valueStats(values, t.dtype) };
}

/** @param {Float64Array} values @param {string} dtype @returns {Stats} */
function valueStats(values, dtype) {
  if (dtype === 'torch.bool') {
    let any = false;
    let all = true;
    for (const v of values) {
      any ||= v !== 0;
      all &&= v !== 0;
    }
    return { max: any, min: all, mean: null, norm: null };
  }
  let max = -Infinity;
  let min = Infinity;
  let sum = 0;
  let sq = 0;
  // torch's max/min propagate NaN, unlike a plain comparison loop.
  if (values.some(Number.isNaN)) return { max: NaN, min: NaN, mean: NaN, norm: NaN };
  for (const v of values) {
    if (v > max) max = v;
    if (v < min) min = v;
    sum += v;
    sq += v * v;
  }
  return { max, min, mean: sum / values.length, norm: Math.sqrt(sq) };
}
