import { useEffect, useRef, type ReactNode } from 'react';
import type { ColorBucket } from '../../core/api/types.js';
import { bucketColor } from '../../core/colors/buckets.js';
import { useT } from '../i18n/i18n.js';
import { formatPrecision } from '../panels/precisionDriver.js';
import { useAppStore } from '../state/appStore.js';
import { foundCsvFile } from '../commands/exportCsv.js';
import { CsvButton } from './CsvButton.js';
import { middleSplit, stepIndex, type FoundOrder } from './foundRows.js';
import type { FindState } from './useFindResults.js';

const NO_COLORS: ColorBucket[] = [];

interface Props {
  testId: string;
  state: FindState;
  onPick: (at: number) => void;
  onOrder?: (order: FoundOrder) => void;
  /** Shown under the count (the filter's "modules match" hint). */
  note?: ReactNode;
  /** Bring the results into view in the sidebar whenever a new answer arrives. */
  reveal?: boolean;
}

/**
 * The results of a search or filter: how many, ↑/↓ to step through them (each step selects and reveals the node),
 * and the list itself. `testId` prefixes every test id (`search-count`, `search-next`, …).
 */
export function FoundList({ testId, state, onPick, onOrder, note, reveal }: Props) {
  const t = useT();
  const listRef = useRef<HTMLUListElement | null>(null);
  const boxRef = useRef<HTMLDivElement | null>(null);
  const colors = useAppStore((s) => s.meta?.colors ?? NO_COLORS);
  const { results, total, at } = state;

  useEffect(() => {
    listRef.current?.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [at]);
  // A new answer (ticking a colour): the sidebar scrolls so the count and the list are in view.
  useEffect(() => {
    if (reveal && state.status === 'done') boxRef.current?.scrollIntoView({ block: 'nearest' });
  }, [reveal, state.status, state.exec]);

  if (state.status === 'idle') return null;
  if (state.status === 'busy') {
    return (
      <p className="pb-found__count" data-testid={`${testId}-count`} data-total="">
        {t('search.busy')}
      </p>
    );
  }
  const count = total === 0 ? t('search.none') : results.length < total ? t('search.countLimited', { total, shown: results.length }) : t('search.count', { total });
  const step = (delta: 1 | -1) => {
    if (results.length > 0) onPick(stepIndex(at, delta, results.length));
  };
  return (
    <div className="pb-found" data-testid={`${testId}-results`} ref={boxRef}>
      <div className="pb-found__bar">
        <span className="pb-found__count" data-testid={`${testId}-count`} data-total={total}>
          {count}
        </span>
        {results.length > 0 && (
          <>
            <span className="pb-found__at" data-testid={`${testId}-position`}>
              {at >= 0 ? t('search.position', { at: at + 1, total }) : ''}
            </span>
            <button type="button" className="pb-found__step" data-testid={`${testId}-prev`} title={t('search.prev')} aria-label={t('search.prev')} onClick={() => step(-1)}>
              ↑
            </button>
            <button type="button" className="pb-found__step" data-testid={`${testId}-next`} title={t('search.next')} aria-label={t('search.next')} onClick={() => step(1)}>
              ↓
            </button>
            <CsvButton testId={`${testId}-csv`} title={t('csv.foundTip')} build={() => foundCsvFile(results, state.side, testId, t, useAppStore.getState())} />
          </>
        )}
      </div>
      {note}
      {state.nearestAncestor !== null && (
        <p className="pb-found__note" data-testid={`${testId}-locate-note`} data-ancestor={state.nearestAncestor}>
          {t('search.nearestAncestor', { id: state.nearestAncestor })}
        </p>
      )}
      {onOrder && results.some((r) => r.precisionIndex !== null) && (
        <label className="pb-found__order">
          <span>{t('filter.sort')}</span>
          <select data-testid={`${testId}-sort`} value={state.order} onChange={(e) => onOrder(e.target.value as FoundOrder)}>
            <option value="exec">{t('filter.sortOrder')}</option>
            <option value="severity">{t('filter.sortSeverity')}</option>
          </select>
        </label>
      )}
      {results.length > 0 && (
        <ul className="pb-found__list" data-testid={`${testId}-list`} ref={listRef}>
          {results.map((found, i) => {
            const { head, tail } = middleSplit(found.id);
            const value = found.precisionIndex;
            const color = value === null ? null : bucketColor(colors, value);
            return (
              <li key={found.id}>
                <button
                  type="button"
                  className="pb-found__item"
                  data-found-id={found.id}
                  data-precision={value ?? undefined}
                  aria-current={i === at}
                  title={value === null ? found.id : `${found.id}\n${t('info.precision')}: ${value}`}
                  onClick={() => onPick(i)}
                >
                  <span className="pb-found__name">
                    <span className="pb-found__head">{head}</span>
                    {tail && <span className="pb-found__tail">{tail}</span>}
                  </span>
                  {value !== null && (
                    <span className="pb-found__value">
                      {color && <span className="pb-swatch pb-found__swatch" data-color={color} style={{ backgroundColor: color }} />}
                      {formatPrecision(value)}
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
