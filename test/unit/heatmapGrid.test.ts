import { describe, expect, it } from 'vitest';
import type { HeatmapResponse, HeatmapRow } from '../../src/core/api/types.js';
import { HeatmapGrid } from '../../src/app/controls/heatmapGrid.js';

/**
 * The heatmap panel's rows as merged from windowed answers (HeatmapPanel, issue 14): columns matched by name across
 * windows, a column a window lacks is absent on its ranks, pending rows asked again, the next window to ask for.
 */

const row = (rank: number, values: Array<number | null>, extra: Partial<HeatmapRow> = {}): HeatmapRow => ({ rank, tag: 't', format: 'db', state: 'ok', values, ...extra });

function answer(rankOffset: number, modules: string[], rows: HeatmapRow[], totalRanks = 10): HeatmapResponse {
  return { step: 0, worst: 'high', colors: [], totalRanks, rankOffset, modules, moreModules: 0, rows, pending: rows.some((r) => r.state === 'pending') };
}

describe('HeatmapGrid', () => {
  it('merges windows by module name; a module a window does not name is absent on its ranks', () => {
    const g = new HeatmapGrid('k');
    g.merge(answer(0, ['a', 'b'], [row(0, [0.5, null]), row(1, [0.1, 0.2], { absent: [1] })]));
    g.merge(answer(5, ['c', 'a'], [row(5, [0.9, 0.3])]));
    expect(g.modules).toEqual(['a', 'b', 'c']);
    expect(g.total).toBe(10);
    expect([0, 1, 2].map((c) => g.cell(0, c).kind)).toEqual(['value', 'noValue', 'absent']);
    expect(g.cell(0, 0).value).toBe(0.5);
    expect(g.cell(1, 1).kind).toBe('absent');
    expect([0, 1, 2].map((c) => g.cell(5, c))).toEqual([
      { row: 5, column: 0, kind: 'value', value: 0.3 },
      { row: 5, column: 1, kind: 'absent', value: null },
      { row: 5, column: 2, kind: 'value', value: 0.9 },
    ]);
    // Not asked yet: shown as not read.
    expect(g.cell(3, 0).kind).toBe('pending');
  });

  it('asks for the first unread rows of the first range that has some, pending rows again, errors not', () => {
    const g = new HeatmapGrid('k');
    g.merge(answer(0, ['a'], [row(0, [1]), row(1, [], { state: 'pending', values: undefined }), row(2, [], { state: 'error', error: 'x', values: undefined }), row(3, [0])]));
    expect(g.pendingRows()).toBe(1);
    expect(g.complete(0, 4)).toBe(false);
    expect(g.complete(2, 4)).toBe(true);
    expect(g.cell(2, 0).kind).toBe('error');
    expect(g.nextWindow([[0, 4]], 512)).toEqual({ offset: 1, limit: 1 });
    expect(g.nextWindow([[2, 4], [4, 8]], 512)).toEqual({ offset: 4, limit: 4 });
    expect(g.nextWindow([[2, 4], [4, 20]], 3)).toEqual({ offset: 4, limit: 3 });
    // Past the total (10 rows) nothing is asked.
    expect(g.nextWindow([[2, 4], [10, 20]], 512)).toBeNull();
    // A run that lost ranks drops the rows past its end.
    g.merge(answer(0, ['a'], [row(0, [1])], 2));
    expect(g.row(3)).toBeUndefined();
    expect(g.nextWindow([[0, 10]], 512)).toEqual({ offset: 1, limit: 1 });
  });
});
