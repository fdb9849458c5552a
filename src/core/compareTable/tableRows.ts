import { pyRepr } from '../formats/pyFormat.js';
import type { TableMode } from './columns.js';
import type { TableRow } from './highlight.js';
import { accuracyVerdict, type RealCells } from './realCells.js';
import type { SideTable } from './sideTable.js';
import type { StackTable } from './stackTable.js';
import { NEED_DOUBLE_CHECK, NO_BENCH, REQUIRES_GRAD_INCONSISTENT, summaryMetricCells, type Cell } from './statCells.js';

/** One result row from an (NPU row, Bench row or -1) pair (msprobe-compare.md §4.2–§4.5). */

export interface RowContext {
  mode: TableMode;
  npu: SideTable;
  bench: SideTable;
  /** The NPU stacks, when the NPU_Stack_Info column is shown. */
  stacks: StackTable | null;
  /** `-f`: matched rows whose names differ get the fuzzy note. */
  fuzzy: boolean;
}

export const FUZZY_NOTE = ' Fuzzy matching data, the comparison accuracy may be affected.';

/** `real`: the tensor metrics of the pair (all mode only). */
export function tableRow(ctx: RowContext, n: number, b: number, real: RealCells | null): TableRow {
  const { npu, bench, mode } = ctx;
  const matched = b >= 0;
  const npuName = npu.name(n);
  const benchName = matched ? bench.name(b) : 'N/A';
  const npuRg = npu.requiresGrad(n) ?? 'N/A';
  const benchRg = matched ? (bench.requiresGrad(b) ?? 'N/A') : 'N/A';
  const rgConsistent = npuRg === benchRg;
  const cells: Cell[] = [
    npuName,
    benchName,
    npu.dtype(n),
    matched ? bench.dtype(b) : 'N/A',
    npu.shape(n),
    matched ? bench.shape(b) : 'N/A',
    npuRg,
    benchRg,
  ];
  const fuzzy = ctx.fuzzy && matched && npuName !== benchName;
  const pushStats = () => {
    for (let k = 0; k < 4; k++) cells.push(npu.statCell(n, k));
    for (let k = 0; k < 4; k++) cells.push(matched ? bench.statCell(b, k) : 'N/A');
  };

  if (mode === 'summary') {
    let result: Cell;
    let err: string;
    if (matched) {
      const s = summaryMetricCells(npu, n, bench, b);
      for (let k = 0; k < 8; k++) cells.push(s.metrics[k]);
      result = s.warning ? 'Warning' : '';
      err = s.warning ? NEED_DOUBLE_CHECK : '';
    } else {
      for (let k = 0; k < 8; k++) cells.push('N/A');
      result = 'N/A';
      err = NO_BENCH;
    }
    if (!rgConsistent) err += REQUIRES_GRAD_INCONSISTENT;
    if (fuzzy) err += FUZZY_NOTE;
    pushStats();
    cells.push(rgConsistent, result, err);
  } else if (mode === 'md5') {
    const npuMd5 = npu.md5(n) ?? 'N/A';
    const benchMd5 = matched ? (bench.md5(b) ?? 'N/A') : 'N/A';
    cells.push(npuMd5, benchMd5, rgConsistent, matched ? (npuMd5 === benchMd5 ? 'pass' : 'Different') : 'N/A');
  } else {
    const r = real!;
    for (let k = 0; k < 6; k++) cells.push(r.metrics[k]);
    pushStats();
    cells.push(rgConsistent, accuracyVerdict(r.metrics[0], r.metrics[2]));
    // In real-data mode an inconsistent requires_grad replaces "No bench data matched." (quirk 6).
    const base = rgConsistent ? (matched ? '' : NO_BENCH) : REQUIRES_GRAD_INCONSISTENT;
    cells.push(base + r.message + (fuzzy ? FUZZY_NOTE : ''));
  }

  if (ctx.stacks) cells.push((npu.isFirstOfApi(n) ? ctx.stacks.text(npu.apiIndex(n)) : null) ?? 'N/A');
  if (mode === 'all') cells.push(pyRepr([npu.dataName(n), matched ? bench.dataName(b) : 'N/A']));
  return { cells, state: npu.state(n), apiKey: npu.apiKey(n), fill: null, npu: n, bench: b };
}
