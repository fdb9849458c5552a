import { useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { Side } from '../../core/api/types.js';
import { client } from '../api/client.js';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { FoundList } from './FoundList.js';
import { stepIndex } from './foundRows.js';
import { useFindResults } from './useFindResults.js';

/** At most this many results are listed; the count says how many there are in all. */
export const FIND_LIMIT = 500;

/**
 * Node search by name on either side of a compare file: a case-insensitive substring or `/regex/` (server/store/
 * findQuery.ts parseSearch). Enter searches; pressed again on the same text it steps to the next hit, Shift+Enter to
 * the previous (wrapping), each step a locate.
 */
export function SearchPanel() {
  const t = useT();
  const meta = useAppStore((s) => s.meta);
  const [side, setSide] = useState<Side>('npu');
  const [text, setText] = useState('');
  const { state, query, clear, pick, setOrder } = useFindResults();
  const asked = useRef<{ q: string; side: Side } | null>(null);
  if (!meta) return null;
  const compare = meta.graphType === 'compare';

  const run = (delta: 1 | -1) => {
    const q = text.trim();
    if (q === '') return clear();
    const on: Side = compare ? side : 'npu';
    const same = asked.current?.q === q && asked.current.side === on && state.status === 'done' && state.side === on;
    if (same) {
      if (state.results.length > 0) pick(stepIndex(state.at, delta, state.results.length));
      return;
    }
    asked.current = { q, side: on };
    query(on, (ref, signal) => client.search(ref, on, q, FIND_LIMIT, signal));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    run(1);
  };
  const keyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter' || !event.shiftKey) return;
    event.preventDefault();
    run(-1);
  };

  return (
    <section className="pb-find" data-testid="search-panel">
      <form className="pb-find__form" onSubmit={submit} role="search">
        {compare && (
          <label className="pb-field">
            <span className="pb-field__label">{t('search.side')}</span>
            <select data-testid="search-side" value={side} onChange={(e) => setSide(e.target.value as Side)}>
              <option value="npu">{t('search.sideNpu')}</option>
              <option value="bench">{t('search.sideBench')}</option>
            </select>
          </label>
        )}
        <div className="pb-find__row">
          <input
            type="search"
            data-testid="search-input"
            value={text}
            placeholder={t('search.placeholder')}
            aria-label={t('search.placeholder')}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={keyDown}
          />
          <button type="submit" data-testid="search-go">
            {t('search.go')}
          </button>
        </div>
      </form>
      <FoundList testId="search" state={state} onPick={pick} onOrder={setOrder} reveal />
    </section>
  );
}
