import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRECISION_METRICS, type PrecisionMetric } from '../../src/core/api/overlay.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { metricCells, metricMask, precisionFromCells, precisionFromMetrics, type Items } from '../../src/core/match/index.js';
import { describeShared, repoRoot, sharedDataDir, visFilesUnder } from '../helpers/shared.js';

/**
 * The metric dialog (reference-viewer.md §3.4): precision_index from a chosen subset of relative errors, checked
 * against the original's update_precision_error run by make_goldens.py (real output cells of golden files and
 * synthetic cells), and with all four metrics against the value msprobe stored in every golden statistics file.
 */

interface MetricNode {
  source: string;
  id: string;
  outputData: Items;
  file: number | null;
  expected: Record<string, [number, boolean] | null>;
}

const { nodes } = parsePyJson(readFileSync(path.join(repoRoot, 'test/fixtures/match/precision-metrics.json'), 'utf8')) as {
  nodes: MetricNode[];
};

describe('precisionFromMetrics against the Python goldens', () => {
  it('covers real and synthetic nodes and nine metric subsets', () => {
    expect(nodes.filter((n) => n.source !== 'synthetic').length).toBeGreaterThan(80);
    expect(Object.keys(nodes[0].expected)).toHaveLength(9);
    // the choice matters: some node changes value between subsets
    expect(nodes.some((n) => new Set(Object.values(n.expected).map((v) => JSON.stringify(v))).size > 2)).toBe(true);
  });

  for (const node of nodes) {
    it(`${node.source} ${node.id}`, () => {
      for (const [subset, want] of Object.entries(node.expected)) {
        const got = precisionFromMetrics(node.outputData, subset.split(',') as PrecisionMetric[]);
        if (want === null) expect(got, subset).toBeNull();
        else expect(got, subset).toEqual({ precisionIndex: want[0], precisionIsInt: want[1] });
      }
    });
  }

  it('the per-metric cells give the same value for every subset of the four, or defer to the record', () => {
    const subsets = Array.from({ length: 15 }, (_, b) => PRECISION_METRICS.filter((_, k) => b + 1 & (1 << k)));
    let reduced = 0;
    for (const node of nodes) {
      const cells = metricCells(node.outputData);
      if (!cells) continue;
      reduced++;
      for (const subset of subsets) {
        expect(precisionFromCells(cells.max, 0, cells.nonFinite, cells.hasOutputs, metricMask(subset)), `${node.source} ${node.id} ${subset}`).toBe(precisionFromMetrics(node.outputData, subset)?.precisionIndex ?? null);
      }
    }
    expect(reduced).toBeGreaterThan(nodes.length * 0.8);
    // A NaN cell is order-dependent in Python's max: such a node is read again.
    expect(metricCells({ o: { MaxRelativeErr: 'abc', MinRelativeErr: '1%' } })).toBeNull();
    expect(metricCells({ o: { MaxRelativeErr: '-3' } })).toBeNull();
  });

  it('gives the index msprobe stored when all four are chosen (to the cells’ 6 decimals)', () => {
    const real = nodes.filter((n) => n.file !== null);
    for (const n of real) expect(precisionFromMetrics(n.outputData, PRECISION_METRICS)!.precisionIndex).toBeCloseTo(n.file!, 8);
  });
});

describeShared('precisionFromMetrics on every golden statistics file', () => {
  it('equals the stored precision_index of every matched NPU node with outputs', () => {
    const data = sharedDataDir()!;
    const files = [...visFilesUnder(path.join(data, 'golden')), ...visFilesUnder(path.join(data, 'real'))];
    let checked = 0;
    let worst = 0;
    for (const file of files) {
      const vis = parsePyJson(readFileSync(file, 'utf8')) as {
        task?: string;
        NPU?: { node: Record<string, { matched_node_link: string[]; output_data: Items; data: { precision_index?: number } }> };
      };
      if (vis.task !== 'summary' || !vis.NPU) continue;
      for (const [id, n] of Object.entries(vis.NPU.node)) {
        if (n.matched_node_link.length === 0 || Object.keys(n.output_data).length === 0) continue;
        const got = precisionFromMetrics(n.output_data, PRECISION_METRICS);
        expect(got, `${file} ${id}`).not.toBeNull();
        const diff = Math.abs(got!.precisionIndex - n.data.precision_index!);
        worst = Math.max(worst, diff);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2500);
    // the cells hold percentages with 6 decimals: at most 5e-9 from msprobe's full-precision value
    expect(worst).toBeLessThan(1e-8);
  });

  it('equals it in the .vis.db goldens too', () => {
    const data = sharedDataDir()!;
    const dbs = (dir: string, depth: number): string[] =>
      depth < 0
        ? []
        : readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
            e.isDirectory() ? dbs(path.join(dir, e.name), depth - 1) : e.name.endsWith('.vis.db') ? [path.join(dir, e.name)] : [],
          );
    let checked = 0;
    // SQLite adds -wal/-shm beside a WAL database even when it only reads it: read copies.
    const copies = mkdtempSync(path.join(tmpdir(), 'match-precision-'));
    for (const file of [...dbs(path.join(data, 'golden'), 3), ...dbs(path.join(data, 'real'), 3)]) {
      const copy = path.join(copies, path.basename(file));
      copyFileSync(file, copy);
      const db = new Database(copy, { readonly: true, fileMustExist: true });
      try {
        const task = (db.prepare('SELECT task FROM tb_config').get() as { task: string }).task;
        if (task !== 'summary') continue;
        const rows = db
          .prepare(
            "SELECT node_name, output_data, precision_index FROM tb_nodes WHERE data_source = 'NPU' AND matched_node_link != '[]' AND output_data != '{}'",
          )
          .all() as Array<{ node_name: string; output_data: string; precision_index: number }>;
        for (const row of rows) {
          const got = precisionFromMetrics(parsePyJson(row.output_data) as Items, PRECISION_METRICS);
          expect(Math.abs(got!.precisionIndex - row.precision_index), `${file} ${row.node_name}`).toBeLessThan(1e-8);
          checked++;
        }
      } finally {
        db.close();
      }
    }
    rmSync(copies, { recursive: true, force: true });
    expect(checked).toBeGreaterThan(2000);
  });
});
