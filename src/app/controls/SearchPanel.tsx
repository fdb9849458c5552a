import { useState, type FormEvent } from 'react';
import type { Side } from '../../core/api/types.js';
import { client } from '../api/client.js';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { FoundList } from './FoundList.js';
import { useFindResults } from './useFindResults.js';

/** At most this many results are listed; the count says how many there are in all. */
export const FIND_LIMIT = 500;

/** Node search by name (case-insensitive substring, on the server's index), on either side of a compare file. */
export function SearchPanel() {
  const t = useT();
  const meta = useAppStore((s) => s.meta);
  const [side, setSide] = useState<Side>('npu');
  const [text, setText] = useState('');
  const { state, query, clear, pick, setOrder } = useFindResults();
  if (!meta) return null;
  const compare = meta.graphType === 'compare';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const q = text.trim();
    if (q === '') return clear();
    const on: Side = compare ? side : 'npu';
    query(on, (ref, signal) => client.search(ref, on, q, FIND_LIMIT, signal));
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
