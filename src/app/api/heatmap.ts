import type { ColorBucket, HeatmapResponse, HeatmapRow } from '../../core/api/types.js';
import { BadAnswerError } from './answers.js';
import { fileOf, getJson, graphQuery, type GraphRef } from './client.js';

/**
 * `GET /api/graph/heatmap` (issue 14): the run's ranks × top-level modules. The answer is checked here like every
 * other (answers.ts): a grid whose sizes disagree is refused, odd entries are coerced to "no value".
 */
export function fetchHeatmap(ref: GraphRef, signal?: AbortSignal): Promise<HeatmapResponse> {
  return getJson('graph/heatmap', graphQuery(ref), (b) => checkHeatmap(b, fileOf(ref)), signal);
}

const STATES: ReadonlyArray<HeatmapRow['state']> = ['ok', 'pending', 'error'];

export function checkHeatmap(body: unknown, file: string): HeatmapResponse {
  const b = body as Partial<Record<keyof HeatmapResponse, unknown>> | null;
  if (typeof b !== 'object' || b === null || !Array.isArray(b.modules) || !Array.isArray(b.rows) || !Array.isArray(b.values)) {
    throw new BadAnswerError(file, 'heatmap answer is not a grid');
  }
  const modules = b.modules.map((m) => String(m));
  const rows: HeatmapRow[] = b.rows.map((r: Partial<HeatmapRow>) => ({
    rank: Number.isSafeInteger(r?.rank) ? r.rank! : -1,
    tag: typeof r?.tag === 'string' ? r.tag : '',
    format: r?.format === 'db' ? 'db' : 'vis',
    state: STATES.includes(r?.state as HeatmapRow['state']) ? r.state! : 'error',
    ...(typeof r?.error === 'string' ? { error: r.error } : {}),
  }));
  if (b.values.length !== rows.length * modules.length) throw new BadAnswerError(file, 'heatmap answer: values do not fill the grid');
  return {
    step: Number.isSafeInteger(b.step) ? (b.step as number) : 0,
    worst: b.worst === 'low' ? 'low' : 'high',
    colors: Array.isArray(b.colors) ? (b.colors as ColorBucket[]) : [],
    modules,
    moreModules: Number.isSafeInteger(b.moreModules) ? (b.moreModules as number) : 0,
    rows,
    values: b.values.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null)),
    absent: Array.isArray(b.absent) ? b.absent.filter((n): n is number => Number.isSafeInteger(n)) : [],
    pending: b.pending === true,
  };
}
