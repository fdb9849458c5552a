import { roundToBfloat16, roundToHalf } from '../formats/float16.js';
import type { TensorDtype } from '../formats/npy.js';
import { formatValue12, pyRound } from './pyNumber.js';

/**
 * Real-tensor metrics of one NPU/Bench tensor pair (msprobe-format.md §3.6; msprobe `npy_compare`), computed in
 * one streaming pass so a tensor never has to be in memory whole: feed element-aligned chunks of both tensors
 * (decoded to doubles) to `TensorPairAccumulator.push`, then `finish()`.
 *
 * numpy details reproduced: the relative error is computed in the promoted dtype of the two arrays (float16 in
 * float16, with a float32 intermediate like numpy's half loops; float32 in float32; ints/bools in float64), the
 * zero-bench epsilon (2^-52) is added in each array's own dtype (it vanishes in float16), thresholds are cast to
 * that dtype, and inf/nan positions are zeroed only when both arrays have them at the same places.
 */

export type { TensorDtype };

export interface TensorInfo {
  dtype: TensorDtype;
  /** [] for a 0-d tensor. */
  shape: number[];
}

/** A Python float, or one of msprobe's strings: "unsupported", "shape unmatched", "N/A", "Nan". */
export type MetricValue = number | string;

export interface TensorMetrics {
  cosine: MetricValue;
  eucDist: MetricValue;
  maxAbsErr: MetricValue;
  maxRelativeErr: MetricValue;
  oneThousandth: MetricValue;
  fiveThousandths: MetricValue;
  /** msprobe's Err_message (informational). */
  message: string;
}

/** One row's files; null = no file (`data_name` "-1", or no matched bench item). */
export interface TensorJob {
  npuPath: string | null;
  benchPath: string | null;
}

export function sameMetric(value: MetricValue, message: string): TensorMetrics {
  return {
    cosine: value,
    eucDist: value,
    maxAbsErr: value,
    maxRelativeErr: value,
    oneThousandth: value,
    fiveThousandths: value,
    message,
  };
}

export function elementCount(shape: number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

function sameShape(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/**
 * The outcome known from the headers alone (msprobe `get_error_flag_and_msg` order: empty, 0-d, shape), or null
 * when the data must be read.
 */
export function metricsFromHeaders(npu: TensorInfo, bench: TensorInfo): TensorMetrics | null {
  if (elementCount(npu.shape) === 0) return sameMetric('unsupported', 'This is empty data, can not compare.');
  if (npu.shape.length === 0) return null;
  if (!sameShape(npu.shape, bench.shape)) {
    return sameMetric('shape unmatched', 'Shape of NPU and bench tensor do not match. Skipped.');
  }
  return null;
}

type FloatKind = 'f16' | 'f32' | 'f64';

const EPS = 2 ** -52;

function isFloat(d: TensorDtype): boolean {
  return d === 'float16' || d === 'float32' || d === 'float64';
}

/** numpy result dtype of (n - b) when b is a float array (n may be an int/bool array). */
function promote(n: TensorDtype, b: TensorDtype): FloatKind {
  if (b === 'float64' || n === 'float64') return 'f64';
  if (n === 'bfloat16') return 'f32';
  if (b === 'float32') {
    if (n === 'int32' || n === 'uint32' || n === 'int64' || n === 'uint64') return 'f64';
    return 'f32';
  }
  // b is float16
  if (n === 'float32') return 'f32';
  if (n === 'float16' || n === 'bool' || n === 'int8' || n === 'uint8') return 'f16';
  if (n === 'int16' || n === 'uint16') return 'f32';
  return 'f64';
}

function roundTo(kind: FloatKind, x: number): number {
  if (kind === 'f64') return x;
  if (kind === 'f32') return Math.fround(x);
  return roundToHalf(Math.fround(x));
}

/** `x += 2**-52` performed in the array's own dtype. */
function addEpsilon(dtype: TensorDtype, x: number): number {
  switch (dtype) {
    case 'float16':
      return x; // the epsilon rounds to 0 in float16
    case 'float32':
      return Math.fround(x + EPS);
    case 'bfloat16':
      return roundToBfloat16(Math.fround(x + EPS));
    default:
      return x + EPS;
  }
}

export class TensorPairAccumulator {
  private readonly relKind: FloatKind;
  private readonly npuType: TensorDtype;
  private readonly benchType: TensorDtype;
  private readonly thr1: number;
  private readonly thr5: number;
  private readonly zeroDim: boolean;
  private count = 0;
  private maskMismatch = false;
  private dot = 0;
  private nn = 0;
  private bb = 0;
  private dd = 0;
  private maxAbs = -Infinity;
  private absNaN = false;
  private maxRel = -Infinity;
  private relNaN = false;
  private below1 = 0;
  private below5 = 0;

  constructor(
    private readonly npu: TensorInfo,
    private readonly bench: TensorInfo,
  ) {
    // A non-float bench converts both arrays to float64 (`astype(float)`) before anything else.
    const benchIsFloat = isFloat(bench.dtype);
    this.npuType = benchIsFloat ? npu.dtype : 'float64';
    this.benchType = benchIsFloat ? bench.dtype : 'float64';
    this.relKind = benchIsFloat ? promote(npu.dtype, bench.dtype) : 'f64';
    this.thr1 = roundTo(this.relKind, 0.001);
    this.thr5 = roundTo(this.relKind, 0.005);
    this.zeroDim = npu.shape.length === 0;
  }

  /** True once the result is known to be "N/A" (inf/nan positions differ): the caller may stop reading. */
  get done(): boolean {
    return this.maskMismatch;
  }

  /** Adds `count` element pairs. For a 0-d NPU tensor pass its value repeated (numpy broadcasting). */
  push(n: Float64Array, b: Float64Array, count: number): void {
    if (this.maskMismatch) return;
    const relKind = this.relKind;
    const zeroDim = this.zeroDim;
    const npuType = this.npuType;
    const benchType = this.benchType;
    for (let i = 0; i < count; i++) {
      let x = n[i];
      let y = b[i];
      if (!zeroDim && !(Number.isFinite(x) && Number.isFinite(y))) {
        // msprobe zeroes inf/nan only when both masks are identical; otherwise every metric is "N/A".
        const xNaN = x !== x;
        const yNaN = y !== y;
        if (xNaN !== yNaN || (!xNaN && Number.isFinite(x) !== Number.isFinite(y))) {
          this.maskMismatch = true;
          return;
        }
        x = 0;
        y = 0;
      }
      // Relative error in the promoted dtype.
      let nr = x;
      let br = y;
      if (y === 0) {
        nr = addEpsilon(npuType, x);
        br = addEpsilon(benchType, 0);
      }
      let rel: number;
      if (relKind === 'f64') rel = Math.abs((nr - br) / br);
      else if (relKind === 'f32') rel = Math.abs(Math.fround(Math.fround(nr - br) / br));
      else rel = Math.abs(roundToHalf(Math.fround(roundToHalf(Math.fround(nr - br)) / br)));
      if (rel !== rel) this.relNaN = true;
      else if (rel > this.maxRel) this.maxRel = rel;
      if (rel < this.thr1) this.below1++;
      if (rel < this.thr5) this.below5++;
      // Everything else works on float64 copies.
      let diff = x - y;
      if (zeroDim) diff = roundTo(relKind, diff);
      const ad = Math.abs(diff);
      if (ad !== ad) this.absNaN = true;
      else if (ad > this.maxAbs) this.maxAbs = ad;
      this.dot += x * y;
      this.nn += x * x;
      this.bb += y * y;
      this.dd += diff * diff;
    }
    this.count += count;
  }

  finish(): TensorMetrics {
    if (this.maskMismatch) {
      return sameMetric('N/A', 'The position of inf or nan in NPU and bench Tensor do not match.');
    }
    const maxAbsErr: MetricValue = this.absNaN ? 'Nan' : formatValue12(this.maxAbs);
    const maxRelativeErr: MetricValue = this.relNaN ? 'Nan' : formatValue12(this.maxRel);
    if (this.zeroDim) {
      return {
        cosine: 'unsupported',
        eucDist: 'unsupported',
        maxAbsErr,
        maxRelativeErr,
        oneThousandth: 'unsupported',
        fiveThousandths: 'unsupported',
        message:
          "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and " +
          "'Five Thousandths Err Ratio'. ",
      };
    }
    let message = '';
    let cosine: MetricValue;
    if (this.count === 1) {
      cosine = 'unsupported';
      message = 'This is a 1-d tensor of length 1.';
    } else {
      const aNorm = Math.sqrt(this.nn);
      const bNorm = Math.sqrt(this.bb);
      if (aNorm <= EPS && bNorm <= EPS) cosine = 1.0;
      else if (aNorm <= EPS) {
        cosine = 'Nan';
        message = 'Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.';
      } else if (bNorm <= EPS) {
        cosine = 'Nan';
        message = 'Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.';
      } else {
        const cos = this.dot / (aNorm * bNorm);
        if (cos !== cos) {
          cosine = 'Nan';
          message = 'Cannot compare by Cosine Similarity, the dump data has NaN.';
        } else {
          const v = formatValue12(cos);
          cosine = v > 0.9999 ? pyRound(v, 6) : v;
        }
      }
    }
    if (this.npu.dtype !== this.bench.dtype && !message) message = 'Dtype of NPU and bench tensor do not match.';
    return {
      cosine,
      eucDist: Math.sqrt(this.dd),
      maxAbsErr,
      maxRelativeErr,
      oneThousandth: formatValue12(this.below1 / this.count),
      fiveThousandths: formatValue12(this.below5 / this.count),
      message,
    };
  }
}
