import {
  DiffAccumulator,
  SummaryAccumulator,
  textTable,
  unravel,
  type TensorDiff,
  type TensorSummary,
} from '../../src/core/compareTable/tensorTools.js';
import { openTensorFile, TensorReadError, type TensorSource } from '../workers/tensorFile.js';

/**
 * `probeboard tensor show|diff`: one or two tensor files (.npy of any numeric dtype incl. float16/bfloat16, C or
 * Fortran order, or torch .pt) streamed in chunks through the accumulators, printed as readable text.
 */

const CHUNK = 1 << 20;

function shapeText(shape: number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}

function num(x: number | null): string {
  if (x === null) return '-';
  if (x !== x) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  return Number.isInteger(x) && Math.abs(x) < 1e16 ? String(x) : String(Number(x.toPrecision(8)));
}

/** Opens in C order; a Fortran-ordered array too big to reorder in memory is read in file order instead. */
function open(file: string): { source: TensorSource; fileOrder: boolean } {
  try {
    return { source: openTensorFile(file), fileOrder: false };
  } catch (e) {
    if (e instanceof TensorReadError && e.problem.includes('too large to reorder')) {
      return { source: openTensorFile(file, { fileOrder: true }), fileOrder: true };
    }
    throw e;
  }
}

export interface ShowResult {
  text: string;
  summary: TensorSummary;
}

export function showTensor(file: string, headSize = 10): ShowResult {
  const { source, fileOrder } = open(file);
  try {
    const acc = new SummaryAccumulator(headSize);
    const buf = new Float64Array(CHUNK);
    for (let n = source.read(buf, CHUNK); n > 0; n = source.read(buf, CHUNK)) acc.push(buf, n);
    const s = acc.finish();
    const lines = [
      `File:     ${file}`,
      `Dtype:    ${source.info.dtype}`,
      `Shape:    ${shapeText(source.info.shape)}  (${s.count} elements${source.fortranOrder ? ', Fortran order' : ''})`,
      `Max:      ${num(s.max)}`,
      `Min:      ${num(s.min)}`,
      `Mean:     ${num(s.mean)}`,
    ];
    if (s.nanCount || s.infCount) lines.push(`NaN/Inf:  ${s.nanCount} / ${s.infCount}`);
    const more = s.count > s.head.length ? ', …' : '';
    lines.push(`Values:   [${s.head.map(num).join(', ')}${more}]${fileOrder ? ' (file order)' : ''}`);
    return { text: lines.join('\n'), summary: s };
  } finally {
    source.close();
  }
}

export interface DiffOptions {
  atol: number;
  rtol: number;
  top: number;
}

export interface DiffResult {
  text: string;
  diff: TensorDiff;
}

export function diffTensors(left: string, right: string, o: DiffOptions): DiffResult {
  // Two Fortran arrays of one shape pair up element by element in file order: no reordering needed.
  const a0 = openTensorFile(left, { fileOrder: true });
  let b0: TensorSource;
  try {
    b0 = openTensorFile(right, { fileOrder: true });
  } catch (e) {
    a0.close();
    throw e;
  }
  const sameShape = a0.info.shape.join() === b0.info.shape.join();
  const fileOrder = a0.fortranOrder && b0.fortranOrder && sameShape;
  if (a0.count !== b0.count) {
    a0.close();
    b0.close();
    throw new TensorReadError(right, `has ${b0.count} elements ${shapeText(b0.info.shape)}, ${left} has ${a0.count} ${shapeText(a0.info.shape)}`);
  }
  let a = a0;
  let b = b0;
  if (!fileOrder) {
    a0.close();
    b0.close();
    // Element pairing needs C order on both sides here (a Fortran array too large to reorder is an error).
    a = openTensorFile(left);
    try {
      b = openTensorFile(right);
    } catch (e) {
      a.close();
      throw e;
    }
  }
  try {
    const shape = a.info.shape;
    const acc = new DiffAccumulator(o.atol, o.rtol, o.top);
    const x = new Float64Array(CHUNK);
    const y = new Float64Array(CHUNK);
    const indexOf = fileOrder ? (f: number) => fortranToCIndex(f, shape) : (i: number) => i;
    for (;;) {
      const n = a.read(x, CHUNK);
      if (n === 0) break;
      if (b.read(y, n) !== n) throw new TensorReadError(right, 'ended before the left tensor');
      acc.push(x, y, n, indexOf);
    }
    const d = acc.finish();
    const lines = [
      `Left:       ${left}  ${a.info.dtype} ${shapeText(shape)}`,
      `Right:      ${right}  ${b.info.dtype} ${shapeText(b.info.shape)}`,
    ];
    if (!sameShape) lines.push('Note:       shapes differ; compared element by element in C order');
    lines.push(
      `NumCnt:     ${d.count}`,
      `AllClose:   ${d.allClose ? 'True' : 'False'}  (atol=${o.atol}, rtol=${o.rtol})`,
      `CosSim:     ${num(d.cosine)}`,
      `MaxAbsErr:  ${num(d.maxAbsErr)}`,
      `MaxRelErr:  ${num(d.maxRelErr)}`,
      `ErrorCnt:   ${d.errorCount}`,
      `ErrorPer:   ${(d.errorRatio * 100).toFixed(4)}%`,
    );
    if (d.top.length) {
      lines.push('', `Top ${d.top.length} errors (|left − right| > atol + rtol·|right|)`);
      lines.push(
        textTable(
          ['index', 'left', 'right', 'abs err', 'rel err'],
          d.top.map((e) => [`(${unravel(e.index, shape).join(', ')})`, num(e.a), num(e.b), num(e.absErr), num(e.relErr)]),
        ),
      );
    }
    return { text: lines.join('\n'), diff: d };
  } finally {
    a.close();
    b.close();
  }
}

/** Position in a Fortran-order buffer → flat C-order index of the same element. */
function fortranToCIndex(f: number, shape: number[]): number {
  let rem = f;
  let c = 0;
  const coords = new Array<number>(shape.length);
  for (let d = 0; d < shape.length; d++) {
    coords[d] = rem % shape[d];
    rem = Math.floor(rem / shape[d]);
  }
  for (let d = 0; d < shape.length; d++) c = c * shape[d] + coords[d];
  return c;
}

