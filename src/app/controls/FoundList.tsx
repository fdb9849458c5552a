import { useEffect, useRef } from 'react';
import { useT } from '../i18n/i18n.js';
import type { FindState } from './useFindResults.js';

/**
 * The results of a search or filter: how many, ↑/↓ to step through them (each step selects and reveals the node),
 * and the list itself. `testId` prefixes every test id (`search-count`, `search-next`, …).
 */
export function FoundList({ testId, state, onPick }: { testId: string; state: FindState; onPick: (at: number) => void }) {
  const t = useT();
  const listRef = useRef<HTMLUListElement | null>(null);
  const { results, total, at } = state;

  useEffect(() => {
    listRef.current?.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [at]);

  if (state.status === 'idle') return null;
  if (state.status === 'busy') {
    return (
      <p className="pb-found__count" data-testid={`${testId}-count`} data-total="">
        {t('search.busy')}
      </p>
    );
  }
  const count = total === 0 ? t('search.none') : results.length < total ? t('search.countLimited', { total, shown: results.length }) : t('search.count', { total });
  const step = (delta: number) => {
    if (results.length === 0) return;
    onPick(at < 0 ? (delta > 0 ? 0 : results.length - 1) : (at + delta + results.length) % results.length);
  };
  return (
    <div className="pb-found" data-testid={`${testId}-results`}>
      <div className="pb-found__bar">
        <span className="pb-found__count" data-testid={`${testId}-count`} data-total={total}>
          {count}
        </span>
        {results.length > 0 && (
          <>
            <span className="pb-found__at">{at >= 0 ? t('search.position', { at: at + 1, shown: results.length }) : ''}</span>
            <button type="button" className="pb-found__step" data-testid={`${testId}-prev`} title={t('search.prev')} aria-label={t('search.prev')} onClick={() => step(-1)}>
              ↑
            </button>
            <button type="button" className="pb-found__step" data-testid={`${testId}-next`} title={t('search.next')} aria-label={t('search.next')} onClick={() => step(1)}>
              ↓
            </button>
          </>
        )}
      </div>
      {results.length > 0 && (
        <ul className="pb-found__list" data-testid={`${testId}-list`} ref={listRef}>
          {results.map((found, i) => (
            <li key={found.id}>
              <button type="button" className="pb-found__item" data-found-id={found.id} aria-current={i === at} title={found.id} onClick={() => onPick(i)}>
                {found.id}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
