import fs from 'node:fs';
import path from 'node:path';
import type { TensorMetricsProvider } from '../../src/core/compare/compareGraphs.js';
import type { TensorJob, TensorMetrics } from '../../src/core/compare/tensorMetrics.js';
import {
  benchHasNoFile,
  benchUnmatched,
  DTYPE_MISMATCH,
  npuHasNoFile,
  readFailed,
  realCellsFromMetrics,
  type RealCells,
} from '../../src/core/compareTable/realCells.js';
import type { SideTable } from '../../src/core/compareTable/sideTable.js';
import { openTensorFile } from '../workers/tensorFile.js';

/**
 * Real-data metrics for a run of table rows (msprobe-compare.md §4.5): the no-file / unmatched / missing-file
 * checks here, the tensor reading and arithmetic in the graph side's worker pool (streamed, one file pair per
 * worker), then the table's message rules.
 */

export interface RealMetricsOptions {
  npuDataDir: string;
  benchDataDir: string;
  provider: TensorMetricsProvider;
  /** One line per missing tensor file. */
  warn: (line: string) => void;
}

function fileProblem(file: string): string | null {
  try {
    const st = fs.lstatSync(file);
    if (st.isSymbolicLink()) return 'is a symbolic link (not read, as msprobe)';
    if (!st.isFile()) return 'is not a file';
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : `cannot be read (${(e as Error).message})`;
  }
}

function peekDtype(file: string): string | null {
  try {
    const t = openTensorFile(file, { fileOrder: true });
    const d = t.info.dtype;
    t.close();
    return d;
  } catch {
    return null;
  }
}

export class RealMetrics {
  private readonly warned = new Set<string>();
  constructor(private readonly o: RealMetricsOptions) {}

  private missing(file: string, problem: string): void {
    if (this.warned.has(file)) return;
    this.warned.add(file);
    this.o.warn(`${file}: ${problem}; its row says "not found or read failed"`);
  }

  /** Cells for the pairs `(npu[k], bench[k])`, in order. */
  async cells(npu: SideTable, bench: SideTable, npuRows: Int32Array, benchRows: Int32Array): Promise<RealCells[]> {
    const out = new Array<RealCells>(npuRows.length);
    const jobs: TensorJob[] = [];
    const jobRows: number[] = [];
    for (let k = 0; k < npuRows.length; k++) {
      const n = npuRows[k];
      const b = benchRows[k];
      const npuName = npu.dataName(n);
      const benchName = b >= 0 ? bench.dataName(b) : 'N/A';
      if (npuName === '-1') out[k] = npuHasNoFile();
      else if (benchName === '-1') out[k] = benchHasNoFile();
      else if (benchName === 'N/A') out[k] = benchUnmatched();
      else {
        const npuPath = path.join(this.o.npuDataDir, npuName);
        const benchPath = path.join(this.o.benchDataDir, benchName);
        const problem = [npuPath, benchPath].map((p) => [p, fileProblem(p)] as const).find(([, pr]) => pr !== null);
        if (problem) {
          this.missing(problem[0], problem[1]!);
          out[k] = readFailed(npuName, benchName);
        } else {
          jobs.push({ npuPath, benchPath });
          jobRows.push(k);
        }
      }
    }
    const results = jobs.length ? await this.o.provider(jobs) : [];
    results.forEach((m, j) => {
      const k = jobRows[j];
      out[k] = this.fromMetrics(m, jobs[j], npu.dataName(npuRows[k]), bench.dataName(benchRows[k]));
    });
    return out;
  }

  private fromMetrics(m: TensorMetrics, job: TensorJob, npuName: string, benchName: string): RealCells {
    if (m.message.startsWith('Dump file:')) return readFailed(npuName, benchName);
    const zeroD = m.message.startsWith('This is type of 0-d tensor');
    let dtypesDiffer = m.message === DTYPE_MISMATCH;
    // The accumulator reports the dtype mismatch only when cosine had nothing to say; look at the headers then.
    if (!dtypesDiffer && m.message !== '' && !zeroD) dtypesDiffer = peekDtype(job.npuPath!) !== peekDtype(job.benchPath!);
    return realCellsFromMetrics(m, dtypesDiffer, zeroD);
  }
}
