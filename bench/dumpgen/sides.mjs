// Renders the side-agnostic trace into one side's dump.json descriptors (msprobe-format.md §1.4.2): the NPU side as
// generated, the Bench side perturbed (small noise everywhere, strong noise in chosen layers, carried noise after
// them), writing .npy files for the tensor task.
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeNpy } from './npy.mjs';
import { hashSeed } from './random.mjs';
import { realValues, syntheticStats } from './tensors.mjs';

/** @typedef {import('./tensors.mjs').TensorRef} TensorRef */
/** @typedef {import('./tensors.mjs').Stats} Stats */

/** A tensor at one position of one dump entry; `dataName` is its flattened name (and .npy name without extension). */
export class TensorSlot {
  /** @param {TensorRef} tensor @param {string} dataName */
  constructor(tensor, dataName) {
    this.tensor = tensor;
    this.dataName = dataName;
  }
}

/**
 * @typedef {object} Perturbation
 * @property {number} noise     relative noise of healthy layers
 * @property {number} carried   noise downstream of a bad layer (forward: later layers; backward: earlier layers)
 * @property {number} strong    noise inside a bad layer
 * @property {Set<number>} badLayers
 */

/**
 * Relative noise of tensor `t` on the Bench side. Integer and boolean tensors (token ids, masks) never differ.
 * @param {TensorRef} t
 * @param {Perturbation} p
 */
export function benchAmplitude(t, p) {
  const src = t.source;
  if (src.kind === 'int' || src.kind === 'bool') return 0;
  const bad = p.badLayers.has(src.layer);
  // Per-tensor jitter so that a bad layer shows a range of colours rather than one.
  const jitter = 0.6 + 0.8 * ((hashSeed(src.seed, 'jitter') % 1000) / 1000);
  if (src.role === 'param') return bad ? p.strong * jitter : 0;
  if (bad) return p.strong * jitter;
  const layers = [...p.badLayers];
  const downstream = src.role === 'fwd' ? layers.some((l) => src.layer > l) : layers.some((l) => src.layer < l);
  return downstream ? p.carried : p.noise;
}

export class SideRenderer {
  /**
   * @param {object} o
   * @param {'npu' | 'bench'} o.side
   * @param {'statistics' | 'tensor'} o.task
   * @param {boolean} o.md5
   * @param {Perturbation | null} o.perturbation  null for the NPU side
   * @param {string | null} o.tensorDir  dump_tensor_data directory (tensor task)
   * @param {boolean} o.fortran  store 2-D+ parameters in Fortran order
   */
  constructor(o) {
    this.side = o.side;
    this.task = o.task;
    this.md5 = o.md5;
    this.perturbation = o.perturbation;
    this.tensorDir = o.tensorDir;
    this.fortran = o.fortran;
    /** Tensor files already written: identical tensors under another name are copied, not regenerated. */
    /** @type {Map<string, { file: string, stats: Stats, size: number }>} */
    this.written = new Map();
    this.tensorBytes = 0;
    this.tensorFiles = 0;
    this.resolve = this.resolve.bind(this);
  }

  /** @param {TensorRef} t */
  amplitude(t) {
    return this.perturbation ? benchAmplitude(t, this.perturbation) : 0;
  }

  /** @param {TensorRef} t */
  overflowOf(t) {
    return this.side === 'npu' ? t.overflow : null;
  }

  /** PyJsonFileWriter hook: slots become descriptors, everything else passes through. @param {object} v */
  resolve(v) {
    return v instanceof TensorSlot ? this.describe(v) : v;
  }

  /** @param {TensorSlot} slot */
  describe(slot) {
    const t = slot.tensor;
    const amp = this.amplitude(t);
    const overflow = this.overflowOf(t);
    /** @type {Record<string, unknown>} */
    const d = { type: 'torch.Tensor', dtype: t.dtype, shape: t.shape.map(BigInt) };
    const stats = this.task === 'tensor' ? this.writeTensor(slot, amp, overflow) : this.statsOf(t, amp, overflow);
    d.Max = stats.max;
    d.Min = stats.min;
    d.Mean = stats.mean;
    d.Norm = stats.norm;
    d.requires_grad = t.requiresGrad;
    if (this.md5) {
      const same = amp === 0 && !overflow;
      d.md5 = hashSeed(t.source.seed, t.dtype, same ? 'same' : this.side).toString(16).padStart(8, '0');
    }
    if (this.task === 'tensor') d.data_name = `${slot.dataName}.npy`;
    return d;
  }

  /** @param {TensorRef} t @param {number} amp @param {'inf' | 'nan' | null} overflow @returns {Stats} */
  statsOf(t, amp, overflow) {
    const s = syntheticStats(t, amp, this.side);
    if (overflow === 'inf') return { max: Infinity, min: s.min, mean: Infinity, norm: Infinity };
    if (overflow === 'nan') return { max: NaN, min: NaN, mean: NaN, norm: NaN };
    return s;
  }

  /** @param {TensorSlot} slot @param {number} amp @param {'inf' | 'nan' | null} overflow @returns {Stats} */
  writeTensor(slot, amp, overflow) {
    const t = slot.tensor;
    if (!this.tensorDir) throw new Error('tensor task without a tensor directory');
    const file = path.join(this.tensorDir, `${slot.dataName}.npy`);
    const key = `${t.source.id}|${t.dtype}|${t.shape.join(',')}|${overflow}`;
    const done = this.written.get(key);
    if (done) {
      copyFileSync(done.file, file);
      this.tensorBytes += done.size;
      this.tensorFiles++;
      return done.stats;
    }
    const { values, stats } = realValues(t, amp, this.side, overflow);
    const fortran = this.fortran && t.role === 'param' && t.shape.length > 1;
    const bytes = encodeNpy(values, t.shape, t.dtype, fortran);
    writeFileSync(file, bytes);
    this.written.set(key, { file, stats, size: bytes.length });
    this.tensorBytes += bytes.length;
    this.tensorFiles++;
    return stats;
  }
}
