import { useEffect, useMemo, useRef, useState, type PointerEvent } from 'react';
import type { HeatmapResponse } from '../../core/api/types.js';
import { rankSiblings } from '../../core/ranks/rankTag.js';
import { fetchHeatmap } from '../api/heatmap.js';
import { openGraphAt } from '../commands/openRank.js';
import { formatPrecision } from '../commands/worstNodes.js';
import { useT, type Translate } from '../i18n/i18n.js';
import { currentGraph, describeError } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';
import { cellAtPoint, cellInfo, paintHeatmap, type CellInfo } from './heatmapPaint.js';
import './heatmap.css';

/** Asked again this often while the server still reads some rank files (answer `pending`). */
const PENDING_POLL_MS = 400;
/** Canvas height budget: rows get at least 2 px (then the box scrolls), at most 16. */
const MAX_BOX_PX = 320;

/** How many ranks the open run has: a `.vis.db`'s list, or the run's per-rank `.vis` files of this step. */
function useRankCount(): number {
  return useAppStore((s) => {
    if (!s.meta || s.meta.graphType !== 'compare') return 0;
    if (s.meta.format === 'db') return s.meta.ranks.length;
    const files = s.runs.find((r) => r.run === s.run)?.tags ?? [];
    return s.tag === null ? 0 : rankSiblings(files, s.tag).length;
  });
}

function tooltipText(t: Translate, h: HeatmapResponse, cell: CellInfo): string {
  const row = h.rows[cell.row];
  let value: string;
  if (cell.kind === 'value') value = formatPrecision(cell.value);
  else if (cell.kind === 'noValue') value = t('heatmap.noValue');
  else if (cell.kind === 'absent') value = t('heatmap.absent');
  else if (cell.kind === 'pending') value = t('heatmap.rowPending');
  else value = t('heatmap.rowError', { error: row.error ?? '' });
  return t('heatmap.cell', { rank: row.rank, module: h.modules[cell.column], value });
}

/**
 * Issue 14's rank × top-level-module heatmap, for runs of ≥ 2 ranks: cell colour = the file's bucket of the worst
 * precision inside the module on that rank, a tooltip on hover, a click opens that rank at that module. Collapsed
 * by default; the grid is asked for when it opens.
 */
export function HeatmapPanel() {
  const t = useT();
  const ranks = useRankCount();
  const fileKey = useAppStore((s) => `${s.fileVersion}|${s.run}|${s.tag}|${s.step}`);
  const [open, setOpen] = useState(false);
  const [grid, setGrid] = useState<HeatmapResponse | null>(null);
  const [hover, setHover] = useState<{ cell: CellInfo; x: number; y: number } | null>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const absent = useMemo(() => new Set(grid?.absent ?? []), [grid]);

  // A `.vis.db` rank switch keeps the grid (same step); another file or step asks again.
  const gridKey = useAppStore((s) => (s.meta?.format === 'db' ? `${s.run}|${s.tag}|${s.step}` : fileKey));
  useEffect(() => setGrid(null), [gridKey]);

  useEffect(() => {
    const ref = currentGraph();
    if (!open || ranks < 2 || !ref) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = () =>
      fetchHeatmap(ref, controller.signal).then(
        (answer) => {
          if (controller.signal.aborted) return;
          setGrid(answer);
          if (answer.pending) timer = setTimeout(ask, PENDING_POLL_MS);
        },
        (err: unknown) => {
          if (controller.signal.aborted || (err as Error)?.name === 'AbortError') return;
          useAppStore.getState().setError(describeError(err));
        },
      );
    void ask();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [open, ranks, gridKey]);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !grid) return;
    paintHeatmap(canvas, grid);
    // Marked once the frame with the grid is on screen (tests and bench/heatmap.mjs wait for it).
    const frame = requestAnimationFrame(() => {
      canvas.setAttribute('data-painted-at', String(performance.now()));
      canvas.setAttribute('data-complete', String(!grid.pending));
    });
    return () => cancelAnimationFrame(frame);
  }, [grid]);

  if (ranks < 2) return null;
  const rows = grid?.rows.length ?? 0;
  const rowPx = rows > 0 ? Math.max(2, Math.min(16, Math.floor(MAX_BOX_PX / rows))) : 0;
  const pendingRows = grid ? grid.rows.filter((r) => r.state === 'pending').length : 0;

  const cellUnder = (e: PointerEvent<HTMLCanvasElement>) => {
    if (!grid) return null;
    const box = e.currentTarget.getBoundingClientRect();
    const at = cellAtPoint(grid, box, e.clientX - box.left, e.clientY - box.top);
    return at ? cellInfo(grid, absent, at.row, at.column) : null;
  };
  const onClick = (e: PointerEvent<HTMLCanvasElement>) => {
    const cell = cellUnder(e);
    const ref = currentGraph();
    if (!grid || !cell || !ref || (cell.kind !== 'value' && cell.kind !== 'noValue')) return;
    const row = grid.rows[cell.row];
    const db = row.format === 'db';
    void openGraphAt({ run: ref.run, tag: row.tag, format: row.format, step: db ? grid.step : null, rank: db ? row.rank : null }, 'npu', grid.modules[cell.column]);
  };

  return (
    <details className="pb-find pb-heatmap" data-testid="heatmap-panel" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary className="pb-sidebar__section pb-worst__title" data-testid="heatmap-toggle">
        {t('heatmap.title')}
      </summary>
      <p className="pb-legend__note">{t('heatmap.hint')}</p>
      {!grid && <p className="pb-found__count">{t('heatmap.busy')}</p>}
      {grid && (
        <>
          <p className="pb-found__count" data-testid="heatmap-size" data-rows={rows} data-columns={grid.modules.length}>
            {t('heatmap.size', { ranks: rows, modules: grid.modules.length })}
            {pendingRows > 0 && ` · ${t('heatmap.pending', { count: pendingRows })}`}
          </p>
          {grid.moreModules > 0 && <p className="pb-legend__note">{t('heatmap.more', { count: grid.moreModules })}</p>}
          <div className="pb-heatmap__box" style={{ maxHeight: MAX_BOX_PX }}>
            <canvas
              ref={canvasRef}
              className="pb-heatmap__canvas"
              data-testid="heatmap-canvas"
              role="img"
              aria-label={t('heatmap.canvas')}
              style={{ height: rows * rowPx }}
              onPointerMove={(e) => {
                const cell = cellUnder(e);
                setHover(cell ? { cell, x: e.clientX, y: e.clientY } : null);
              }}
              onPointerLeave={() => setHover(null)}
              onClick={onClick}
            />
          </div>
          {hover && (
            <div
              className="pb-heatmap__tip"
              role="tooltip"
              data-testid="heatmap-tooltip"
              data-rank={grid.rows[hover.cell.row].rank}
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
