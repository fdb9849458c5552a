import { useEffect, useState } from 'react';
import type { Side, WorstResponse } from '../../core/api/types.js';
import { fetchWorst, type WorstOrder } from '../api/worst.js';
import { formatPrecision, middleEllipsis, nodeTypeKey, pageInfo, precisionSwatch, turnPage, WORST_PAGE_SIZE } from '../commands/worstNodes.js';
import { foundCsvFile } from '../commands/exportCsv.js';
import { useT } from '../i18n/i18n.js';
import { currentGraph, describeError, selectFound } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';
import { CsvButton } from './CsvButton.js';
import { FirstDivergentButton } from './FirstDivergentButton.js';

/**
 * Issue 14's worst-nodes table: every node of a side with a precision value, worst first (md5: differing first) or
 * in execution order, a page at a time from `/api/graph/worst`. A row click selects the node and reveals it, as a
 * search result does (selectFound). Collapsed by default; the first page is asked for when it opens.
 */
export function WorstNodesPanel() {
  const t = useT();
  const meta = useAppStore((s) => s.meta);
  const fileKey = useAppStore((s) => `${s.fileVersion}|${s.run}|${s.tag}|${s.step}|${s.rank}`);
  const selected = useAppStore((s) => (s.selection ? `${s.selection.side}:${s.selection.id}` : null));
  const [open, setOpen] = useState(false);
  const [side, setSide] = useState<Side>('npu');
  const [order, setOrder] = useState<WorstOrder>('precision');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<(WorstResponse & { side: Side }) | null>(null);
  const [busy, setBusy] = useState(false);

  // Another file, step or rank starts again at the first page of the NPU side.
  useEffect(() => {
    setSide('npu');
    setOffset(0);
    setPage(null);
  }, [fileKey]);

  useEffect(() => {
    const ref = currentGraph();
    if (!open || !meta || !ref) return;
    const controller = new AbortController();
    setBusy(true);
    fetchWorst(ref, { side, order, offset, limit: WORST_PAGE_SIZE }, controller.signal).then(
      (answer) => {
        if (controller.signal.aborted) return;
        setPage({ ...answer, side });
        setBusy(false);
      },
      (err: unknown) => {
        if (controller.signal.aborted || (err as Error)?.name === 'AbortError') return;
        setBusy(false);
        setPage(null);
        useAppStore.getState().setError(describeError(err));
      },
    );
    return () => controller.abort();
  }, [open, meta, side, order, offset, fileKey]);

  if (!meta || meta.graphType !== 'compare') return null;
  const info = page ? pageInfo(page.offset, page.results.length, page.total) : null;

  return (
    <details className="pb-find pb-worst" data-testid="worst-panel" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary className="pb-sidebar__section pb-worst__title" data-testid="worst-toggle">
        {t('worst.title')}
      </summary>
      <p className="pb-legend__note">{t('worst.hint')}</p>
      <FirstDivergentButton />
      <div className="pb-worst__controls">
        <Choice
          label={t('worst.side')}
          testId="worst-side"
          value={side}
          options={[['npu', t('search.sideNpu')], ['bench', t('search.sideBench')]]}
          onPick={(v) => {
            setSide(v);
            setOffset(0);
          }}
        />
        <Choice
          label={t('worst.order')}
          testId="worst-order"
          value={order}
          options={[['precision', t('worst.orderPrecision')], ['execution', t('worst.orderExecution')]]}
          onPick={(v) => {
            setOrder(v);
            setOffset(0);
          }}
        />
      </div>
      {busy && !page && <p className="pb-found__count">{t('worst.busy')}</p>}
      {page && info && page.total === 0 && (
        <p className="pb-found__count" data-testid="worst-count" data-total={0}>
          {t('worst.none')}
        </p>
      )}
      {page && info && page.total > 0 && (
        <>
          <div className="pb-found__bar">
            <span className="pb-found__count" data-testid="worst-count" data-total={page.total} data-busy={busy}>
              {t('worst.page', { first: info.first, last: info.last, total: page.total })}
            </span>
            <button
              type="button"
              className="pb-found__step"
              data-testid="worst-prev"
              disabled={!info.prev}
              title={t('worst.prev')}
              aria-label={t('worst.prev')}
              onClick={() => setOffset(turnPage(page.offset, -1, page.total))}
            >
              ‹
            </button>
            <button
              type="button"
              className="pb-found__step"
              data-testid="worst-next"
              disabled={!info.next}
              title={t('worst.next')}
              aria-label={t('worst.next')}
              onClick={() => setOffset(turnPage(page.offset, 1, page.total))}
            >
              ›
            </button>
            <CsvButton testId="worst-csv" title={t('csv.worstTip')} build={() => foundCsvFile(page.results, page.side, 'worst', t, useAppStore.getState())} />
          </div>
          <table className="pb-worst__table" data-testid="worst-table">
            <thead>
              <tr>
                <th scope="col">{t('worst.colName')}</th>
                <th scope="col">{t('worst.colValue')}</th>
                <th scope="col">{t('worst.colType')}</th>
              </tr>
            </thead>
            <tbody>
              {page.results.map((found) => {
                const swatch = precisionSwatch(meta.colors, found.precisionIndex);
                const typeKey = nodeTypeKey(found.nodeType);
                return (
                  <tr
                    key={found.id}
                    className="pb-worst__row"
                    data-worst-id={found.id}
                    aria-current={selected === `${page.side}:${found.id}`}
                    onClick={() => selectFound(page.side, found)}
                  >
                    <td className="pb-worst__name" title={found.id}>
                      <button type="button" className="pb-worst__pick">
                        {middleEllipsis(found.id, 30)}
                      </button>
                    </td>
                    <td className="pb-worst__value" data-value={found.precisionIndex ?? ''}>
                      {swatch && <span className="pb-swatch" style={{ backgroundColor: swatch }} />}
                      {formatPrecision(found.precisionIndex)}
                    </td>
                    <td className="pb-worst__type">{t(typeKey, { type: found.nodeType })}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
    </details>
  );
}

/** One labelled picker of the panel's controls. */
function Choice<V extends string>(p: { label: string; testId: string; value: V; options: Array<[V, string]>; onPick: (v: V) => void }) {
  return (
    <label className="pb-field">
      <span className="pb-field__label">{p.label}</span>
      <select data-testid={p.testId} value={p.value} onChange={(e) => p.onPick(e.target.value as V)}>
        {p.options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}
