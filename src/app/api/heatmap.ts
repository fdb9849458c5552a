import type { ColorBucket, HeatmapResponse, HeatmapRow } from '../../core/api/types.js';
import { BadAnswerError } from './answers.js';
import { fileOf, getJson, graphQuery, type GraphRef } from './client.js';

/** Rows [rankOffset, rankOffset + rankLimit) of the heatmap. */
export interface HeatmapWindow {
  rankOffset: number;
  rankLimit: number;
}

/**
 * `GET /api/graph/heatmap` (issue 14): one window of the run's ranks × top-level modules. The answer is checked here
 * like every other (answers.ts): a row whose values do not fill the window's columns is refused, odd entries are
 * coerced to "no value".
 */
export function fetchHeatmap(ref: GraphRef, window: HeatmapWindow, signal?: AbortSignal): Promise<HeatmapResponse> {
  return getJson('graph/heatmap', { ...graphQuery(ref), ...window }, (b) => checkHeatmap(b, fileOf(ref)), signal);
}

const STATES: ReadonlyArray<HeatmapRow['state']> = ['ok', 'pending', 'error'];

const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : 0);

export function checkHeatmap(body: unknown, file: string): HeatmapResponse {
  const b = body as Partial<Record<keyof HeatmapResponse, unknown>> | null;
  if (typeof b !== 'object' || b === null || !Array.isArray(b.modules) || !Array.isArray(b.rows)) {
    throw new BadAnswerError(file, 'heatmap answer is not a grid');
  }
  const modules = b.modules.map((m) => String(m));
  const width = modules.length;
  const rows: HeatmapRow[] = b.rows.map((r: Partial<HeatmapRow>) => {
    const row: HeatmapRow = {
      rank: Number.isSafeInteger(r?.rank) ? r.rank! : -1,
      tag: typeof r?.tag === 'string' ? r.tag : '',
      format: r?.format === 'db' ? 'db' : 'vis',
      state: STATES.includes(r?.state as HeatmapRow['state']) ? r.state! : 'error',
      ...(typeof r?.error === 'string' ? { error: r.error } : {}),
    };
    if (row.state !== 'ok') return row;
    if (!Array.isArray(r.values) || r.values.length !== width) throw new BadAnswerError(file, `heatmap answer: rank ${row.rank}'s values do not fill the columns`);
    row.values = r.values.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null));
    if (Array.isArray(r.absent)) row.absent = r.absent.filter((c): c is number => Number.isSafeInteger(c) && c >= 0 && c < width);
    return row;
  });
  const totalRanks = count(b.totalRanks);
  const rankOffset = count(b.rankOffset);
  if (rankOffset + rows.length > totalRanks) throw new BadAnswerError(file, 'heatmap answer: rows past the total');
  return {
    step: Number.isSafeInteger(b.step) ? (b.step as number) : 0,
    worst: b.worst === 'low' ? 'low' : 'high',
    colors: Array.isArray(b.colors) ? (b.colors as ColorBucket[]) : [],
    totalRanks,
    rankOffset,
    modules,
    moreModules: count(b.moreModules),
    rows,
    pending: b.pending === true,
  };
}
