import { useCallback, useEffect, useRef, useState, type PointerEvent, type UIEvent } from 'react';
import { HEATMAP_MAX_RANK_LIMIT } from '../../core/api/types.js';
import { rankSiblings } from '../../core/ranks/rankTag.js';
import { fetchHeatmap } from '../api/heatmap.js';
import { openGraphAt } from '../commands/openRank.js';
import { formatPrecision } from '../commands/worstNodes.js';
import { useT, type Translate } from '../i18n/i18n.js';
import { currentGraph, describeError } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';
import { HeatmapGrid, type CellInfo } from './heatmapGrid.js';
import { cellAtPoint, paintHeatmap } from './heatmapPaint.js';
import './heatmap.css';

/** Asked again this soon while the server still reads some ranks (rows answered `pending`). */
const PENDING_POLL_MS = 150;
/** Box height budget: rows get at least 2 px (then the box scrolls), at most 16. */
const MAX_BOX_PX = 320;
const MIN_ROW_PX = 2;
const MAX_ROW_PX = 16;
/** The first answer covers the most rows a box can show, before the rank count (and so the row height) is known. */
const FIRST_LIMIT = Math.ceil(MAX_BOX_PX / MIN_ROW_PX) + 1;

/** How many ranks the open run has: a `.vis.db`'s list, or the run's per-rank `.vis` files of this step. */
function useRankCount(): number {
  return useAppStore((s) => {
    if (!s.meta || s.meta.graphType !== 'compare') return 0;
    if (s.meta.format === 'db') return s.meta.ranks.length;
    const files = s.runs.find((r) => r.run === s.run)?.tags ?? [];
    return s.tag === null ? 0 : rankSiblings(files, s.tag).length;
  });
}

/** Row height and the rows a box of the budget shows, for `total` rows. */
function rowGeometry(total: number): { rowPx: number; viewRows: number } {
  if (total <= 0) return { rowPx: 0, viewRows: 0 };
  const rowPx = Math.max(MIN_ROW_PX, Math.min(MAX_ROW_PX, Math.floor(MAX_BOX_PX / total)));
  return { rowPx, viewRows: Math.ceil(Math.min(MAX_BOX_PX, total * rowPx) / rowPx) };
}

function tooltipText(t: Translate, grid: HeatmapGrid, cell: CellInfo): string {
  const row = grid.row(cell.row);
  let value: string;
  if (cell.kind === 'value') value = formatPrecision(cell.value);
  else if (cell.kind === 'noValue') value = t('heatmap.noValue');
  else if (cell.kind === 'absent') value = t('heatmap.absent');
  else if (cell.kind === 'pending') value = t('heatmap.rowPending');
  else value = t('heatmap.rowError', { error: row?.error ?? '' });
  return t('heatmap.cell', { rank: row?.rank ?? '?', module: grid.modules[cell.column], value });
}

/**
 * Issue 14's rank × top-level-module heatmap, for runs of ≥ 2 ranks: cell colour = the file's bucket of the worst
 * precision inside the module on that rank, a tooltip on hover, a click opens that rank at that module. Collapsed
 * by default. The canvas shows only the rows in view (virtual scrolling) and the panel asks the server only for
 * those rows, then for a box's worth above and below (`/api/graph/heatmap` answers windows of ranks).
 */
export function HeatmapPanel() {
  const t = useT();
  const ranks = useRankCount();
  const fileKey = useAppStore((s) => `${s.fileVersion}|${s.run}|${s.tag}|${s.step}`);
  // A `.vis.db` rank switch keeps the grid (same step); another file or step asks again.
  const gridKey = useAppStore((s) => (s.meta?.format === 'db' ? `${s.run}|${s.tag}|${s.step}` : fileKey));
  const [open, setOpen] = useState(false);
  const gridRef = useRef<HeatmapGrid | null>(null);
  // Bumped by every answer merged into the grid (the grid itself is mutable).
  const [version, setVersion] = useState(0);
  const [firstRow, setFirstRow] = useState(0);
  const [hover, setHover] = useState<{ cell: CellInfo; x: number; y: number } | null>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const viewRef = useRef({ first: 0, count: 0, viewRows: 0 });
  const pumpRef = useRef<() => void>(() => {});

  const grid = gridRef.current?.key === gridKey ? gridRef.current : null;
  const total = grid?.total ?? 0;
  const { rowPx, viewRows } = rowGeometry(total);
  const first = Math.max(0, Math.min(firstRow, total - viewRows));
  const count = Math.min(total - first, viewRows + 1);
  viewRef.current = { first, count, viewRows };

  useEffect(() => {
    const ref = currentGraph();
    if (!open || ranks < 2 || !ref) return;
    if (gridRef.current?.key !== gridKey) {
      gridRef.current = new HeatmapGrid(gridKey);
      setVersion((v) => v + 1);
    }
    const g = gridRef.current!;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let busy = false;
    // One request at a time: the rows in view first, then a box's worth below and above.
    const pump = () => {
      if (busy || controller.signal.aborted) return;
      const v = viewRef.current;
      const want =
        g.total === null
          ? { offset: 0, limit: FIRST_LIMIT }
          : g.nextWindow(
              [
                [v.first, v.first + v.count],
                [v.first + v.count, v.first + v.count + v.viewRows],
                [v.first - v.viewRows, v.first],
              ],
              HEATMAP_MAX_RANK_LIMIT,
            );
      if (!want) return;
      busy = true;
      fetchHeatmap(ref, { rankOffset: want.offset, rankLimit: want.limit }, controller.signal).then(
        (answer) => {
          busy = false;
          if (controller.signal.aborted) return;
          g.merge(answer);
          setVersion((n) => n + 1);
          clearTimeout(timer);
          timer = setTimeout(pump, answer.pending ? PENDING_POLL_MS : 0);
        },
        (err: unknown) => {
          busy = false;
          if (controller.signal.aborted || (err as Error)?.name === 'AbortError') return;
          useAppStore.getState().setError(describeError(err));
        },
      );
    };
    pumpRef.current = pump;
    pump();
    return () => {
      controller.abort();
      clearTimeout(timer);
      pumpRef.current = () => {};
    };
  }, [open, ranks, gridKey]);

  // A scroll to rows not read yet asks for them (unless a request is under way: its answer asks next).
  useEffect(() => pumpRef.current(), [first, count]);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !grid || grid.total === null) return;
    paintHeatmap(canvas, grid, first, count);
    // Marked once the frame with these rows is on screen (tests and bench/heatmap.mjs wait for it).
    const frame = requestAnimationFrame(() => {
      canvas.setAttribute('data-painted-at', String(performance.now()));
      canvas.setAttribute('data-first-row', String(first));
      canvas.setAttribute('data-complete', String(grid.complete(first, first + count)));
    });
    return () => cancelAnimationFrame(frame);
  }, [grid, version, first, count]);

  const onScroll = useCallback(
    (e: UIEvent<HTMLDivElement>) => {
      setHover(null);
      if (rowPx > 0) setFirstRow(Math.floor(e.currentTarget.scrollTop / rowPx));
    },
    [rowPx],
  );

  if (ranks < 2) return null;
  const pendingRows = grid ? grid.pendingRows() : 0;

  const cellUnder = (e: PointerEvent<HTMLCanvasElement>) => {
    if (!grid) return null;
    const box = e.currentTarget.getBoundingClientRect();
    const at = cellAtPoint(count, grid.modules.length, box, e.clientX - box.left, e.clientY - box.top);
    return at ? grid.cell(first + at.row, at.column) : null;
  };
  const onClick = (e: PointerEvent<HTMLCanvasElement>) => {
    const cell = cellUnder(e);
    const ref = currentGraph();
    const row = cell ? grid?.row(cell.row) : undefined;
    if (!grid || !cell || !row || !ref || (cell.kind !== 'value' && cell.kind !== 'noValue')) return;
    const db = row.format === 'db';
    void openGraphAt({ run: ref.run, tag: row.tag, format: row.format, step: db ? grid.step : null, rank: db ? row.rank : null }, 'npu', grid.modules[cell.column]);
  };
  const hovered = hover && grid ? grid.row(hover.cell.row) : undefined;

  return (
    <details className="pb-find pb-heatmap" data-testid="heatmap-panel" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary className="pb-sidebar__section pb-worst__title" data-testid="heatmap-toggle">
        {t('heatmap.title')}
      </summary>
      <p className="pb-legend__note">{t('heatmap.hint')}</p>
      {(!grid || grid.total === null) && <p className="pb-found__count">{t('heatmap.busy')}</p>}
      {grid && grid.total !== null && (
        <>
          <p className="pb-found__count" data-testid="heatmap-size" data-rows={total} data-columns={grid.modules.length}>
            {t('heatmap.size', { ranks: total, modules: grid.modules.length })}
            {pendingRows > 0 && ` · ${t('heatmap.pending', { count: pendingRows })}`}
          </p>
          {grid.moreModules > 0 && <p className="pb-legend__note">{t('heatmap.more', { count: grid.moreModules })}</p>}
          <div className="pb-heatmap__box" data-testid="heatmap-box" style={{ maxHeight: MAX_BOX_PX }} onScroll={onScroll}>
            <div className="pb-heatmap__rows" style={{ height: total * rowPx }}>
              <canvas
                ref={canvasRef}
                className="pb-heatmap__canvas"
                data-testid="heatmap-canvas"
                role="img"
                aria-label={t('heatmap.canvas')}
                style={{ top: first * rowPx, height: count * rowPx }}
                onPointerMove={(e) => {
                  const cell = cellUnder(e);
                  setHover(cell ? { cell, x: e.clientX, y: e.clientY } : null);
                }}
                onPointerLeave={() => setHover(null)}
                onClick={onClick}
              />
            </div>
          </div>
          {hover && hovered && (
            <div
              className="pb-heatmap__tip"
              role="tooltip"
              data-testid="heatmap-tooltip"
              data-rank={hovered.rank}
              data-module={grid.modules[hover.cell.column]}
              data-kind={hover.cell.kind}
              style={{ left: hover.x + 12, top: hover.y + 12 }}
            >
              {tooltipText(t, grid, hover.cell)}
            </div>
          )}
        </>
      )}
    </details>
  );
}
