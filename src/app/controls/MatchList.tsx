import { useEffect, useRef, useState } from 'react';
import type { OverlayNodesResponse } from '../../core/api/overlay.js';
import type { Side } from '../../core/api/types.js';
import { overlayApi, type ListState } from '../api/overlay.js';
import { useT } from '../i18n/i18n.js';
import { currentGraph, describeError } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';
import { useOverlayStore } from '../state/overlayStore.js';
import { middleSplit } from './foundRows.js';

export type ListEntry = OverlayNodesResponse['results'][number];

/** Entries asked for at once; ↑/↓ past the loaded ones asks for the neighbouring page. */
export const MATCH_LIST_PAGE = 100;

interface Page {
  total: number;
  offset: number;
  results: ListEntry[];
}

/**
 * One side's unmatched or matched nodes under the open graph's overlay (`GET /api/overlay/nodes`), a page at a time,
 * read again whenever the overlay changes. The chosen entry is highlighted; ↑/↓ step to the previous / next one,
 * turning the page when needed, and each step picks it (the panel locates it).
 */
export function MatchList({ side, state, chosen, onPick }: { side: Side; state: ListState; chosen: string | null; onPick: (entry: ListEntry) => void }) {
  const t = useT();
  const version = useOverlayStore((s) => s.version);
  const key = useOverlayStore((s) => s.key);
  const metaReady = useAppStore((s) => s.meta !== null);
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<Page | null>(null);
  const [busy, setBusy] = useState(false);
  /** The index ↑/↓ went to, picked once its page is loaded. */
  const wanted = useRef<number | null>(null);
  const listRef = useRef<HTMLUListElement | null>(null);
  const onPickRef = useRef(onPick);
  onPickRef.current = onPick;

  useEffect(() => {
    setOffset(0);
    setPage(null);
  }, [key]);

  useEffect(() => {
    const ref = currentGraph();
    if (!ref || !metaReady) return;
    const controller = new AbortController();
    setBusy(true);
    overlayApi.nodes(ref, side, state, offset, MATCH_LIST_PAGE, controller.signal).then(
      (answer) => {
        if (controller.signal.aborted) return;
        setBusy(false);
        setPage({ total: answer.total, offset, results: answer.results });
        const at = wanted.current;
        wanted.current = null;
        if (at !== null && at >= offset && at - offset < answer.results.length) onPickRef.current(answer.results[at - offset]);
      },
      (err: unknown) => {
        if (controller.signal.aborted || (err as Error)?.name === 'AbortError') return;
        setBusy(false);
        useAppStore.getState().setError(describeError(err));
      },
    );
    return () => controller.abort();
  }, [side, state, offset, version, key, metaReady]);

  const local = page ? page.results.findIndex((e) => e.id === chosen) : -1;
  const at = page && local >= 0 ? page.offset + local : -1;

  useEffect(() => {
    const list = listRef.current;
    const item = local < 0 ? null : list?.querySelector(`[data-index="${local}"]`);
    if (!list || !item) return;
    // The list alone scrolls (scrollIntoView would scroll the sidebar too, away from what the user looks at).
    const outer = list.getBoundingClientRect();
    const inner = item.getBoundingClientRect();
    if (inner.top < outer.top) list.scrollTop -= outer.top - inner.top;
    else if (inner.bottom > outer.bottom) list.scrollTop += inner.bottom - outer.bottom;
  }, [local]);

  const step = (delta: number) => {
    if (!page || page.total === 0) return;
    const next = at < 0 ? (delta > 0 ? page.offset : page.offset + page.results.length - 1) : (at + delta + page.total) % page.total;
    if (next >= page.offset && next < page.offset + page.results.length) onPick(page.results[next - page.offset]);
    else {
      wanted.current = next;
      setOffset(Math.floor(next / MATCH_LIST_PAGE) * MATCH_LIST_PAGE);
    }
  };

  const total = page?.total ?? 0;
  const testId = `match-${state}-${side}`;
  return (
    <div className="pb-match__list" data-testid={testId} data-total={page ? total : undefined} data-busy={busy}>
      <div className="pb-found__bar">
        <span className="pb-found__count" data-testid={`${testId}-count`}>
          {t(side === 'npu' ? 'match.listNpu' : 'match.listBench', { count: page ? total : '…' })}
        </span>
        {at >= 0 && <span className="pb-found__at">{t('match.position', { at: at + 1, total })}</span>}
        <button type="button" className="pb-found__step" data-testid={`${testId}-prev`} disabled={total === 0} title={t('match.prev')} aria-label={t('match.prev')} onClick={() => step(-1)}>
          ↑
        </button>
        <button type="button" className="pb-found__step" data-testid={`${testId}-next`} disabled={total === 0} title={t('match.next')} aria-label={t('match.next')} onClick={() => step(1)}>
          ↓
        </button>
      </div>
      {!page && busy && <p className="pb-found__count">{t('match.listBusy')}</p>}
      {page && total === 0 && <p className="pb-found__count">{t('match.listEmpty')}</p>}
      {page && page.results.length > 0 && (
        <ul className="pb-found__list pb-match__items" ref={listRef} role="listbox" aria-label={t(side === 'npu' ? 'match.listNpu' : 'match.listBench', { count: total })}>
          {page.results.map((entry, i) => {
            const { head, tail } = middleSplit(entry.id);
            return (
              <li key={entry.id} role="option" aria-selected={entry.id === chosen}>
                <button
                  type="button"
                  className="pb-found__item"
                  data-index={i}
                  data-entry-id={entry.id}
                  aria-current={entry.id === chosen}
                  title={entry.counterpart ? `${entry.id}\n↔ ${entry.counterpart}` : entry.id}
                  onClick={() => onPick(entry)}
                >
                  <span className="pb-found__name">
                    <span className="pb-found__head">{head}</span>
                    <span className="pb-found__tail">{tail}</span>
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
