import { useEffect, useMemo, useRef, useState } from 'react';
import type { ColorBucket } from '../../core/api/types.js';
import { client } from '../api/client.js';
import { useT, type MessageKey } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { bucketLabel } from './bucketLabel.js';
import { FoundList } from './FoundList.js';
import { hiddenModules } from './foundRows.js';
import { FIND_LIMIT } from './SearchPanel.js';
import { useFindResults } from './useFindResults.js';

const OVERFLOW_LEVELS = ['medium', 'high', 'critical'] as const;

/** The file's buckets that are ranges (the unmatched bucket has its own tick box). */
function rangeBuckets(colors: readonly ColorBucket[]): Array<{ bucket: ColorBucket; range: [number, number] }> {
  return colors.flatMap((bucket) =>
    Array.isArray(bucket.value) && bucket.value.length === 2 ? [{ bucket, range: [Number(bucket.value[0]), Number(bucket.value[1])] as [number, number] }] : [],
  );
}

/**
 * Precision filter (reference-viewer.md §3.4): tick colour buckets, "no matching node" and overflow levels, get the
 * NPU nodes in them, step through them with ↑/↓. The query runs on the server's index on every change.
 */
export function FilterPanel() {
  const t = useT();
  const meta = useAppStore((s) => s.meta);
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set());
  const [leaves, setLeaves] = useState(true);
  const { state, query, clear, pick, setOrder } = useFindResults();
  const buckets = useMemo(() => rangeBuckets(meta?.colors ?? []), [meta]);
  // With "Leaf nodes only", the same query without it counts the modules it hides.
  const [allTotal, setAllTotal] = useState<number | null>(null);
  const countRun = useRef<AbortController | null>(null);

  // Ticks name buckets by position: another step, rank or file with the same buckets keeps them (issue 14 item 5),
  // other buckets clear them. While the next file loads (no meta) nothing changes.
  const bucketKey = meta ? JSON.stringify([buckets.map((b) => b.range), meta.overflowCheck]) : null;
  const shownBuckets = useRef<string | null>(null);
  useEffect(() => {
    if (bucketKey === null) return;
    if (shownBuckets.current !== null && shownBuckets.current !== bucketKey) setTicked(new Set());
    shownBuckets.current = bucketKey;
  }, [bucketKey]);

  useEffect(() => {
    if (!meta || ticked.size === 0) return clear();
    const precision = buckets.filter((_, i) => ticked.has(`bucket-${i}`)).map((b) => b.range);
    const overflow = OVERFLOW_LEVELS.filter((level) => ticked.has(`overflow-${level}`));
    const unmatched = ticked.has('unmatched');
    countRun.current?.abort();
    setAllTotal(null);
    query('npu', (ref, signal) => {
      if (leaves) {
        const counting = new AbortController();
        countRun.current = counting;
        signal.addEventListener('abort', () => counting.abort());
        client.filter(ref, { side: 'npu', precision, unmatched, overflow, leaves: false, limit: 1 }, counting.signal).then(
          (answer) => !counting.signal.aborted && setAllTotal(answer.total),
          () => undefined,
        );
      }
      return client.filter(ref, { side: 'npu', precision, unmatched, overflow, leaves, limit: FIND_LIMIT }, signal);
    });
  }, [ticked, leaves, meta, buckets, query, clear]);
  useEffect(() => () => countRun.current?.abort(), []);

  if (!meta || meta.graphType !== 'compare') return null;
  const toggle = (key: string) =>
    setTicked((now) => {
      const next = new Set(now);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  const box = (key: string, label: string, swatch?: string) => (
    <li key={key}>
      <label className="pb-filter__choice">
        <input type="checkbox" data-testid={`filter-${key}`} checked={ticked.has(key)} onChange={() => toggle(key)} />
        {swatch && <span className="pb-swatch" style={{ backgroundColor: swatch }} />}
        <span>{label}</span>
      </label>
    </li>
  );
  const hidden = state.status === 'done' ? hiddenModules(leaves, state.total, allTotal) : null;
  const hint =
    hidden === null ? null : (
      <p className="pb-found__hint" data-testid="filter-modules-hint" data-count={hidden}>
        {t('filter.modulesMatch', { count: hidden })}
      </p>
    );
  const unmatchedColor = meta.colors.find((b) => !Array.isArray(b.value) || b.value.length === 0)?.color;

  return (
    <section className="pb-find" data-testid="filter-panel">
      <p className="pb-legend__note">{t('filter.hint')}</p>
      <ul className="pb-filter__choices">
        {buckets.map(({ bucket }, i) => {
          const label = bucketLabel(bucket, meta.task);
          return box(`bucket-${i}`, 'text' in label ? label.text : t(label.key, label.vars), bucket.color);
        })}
        {box('unmatched', t('filter.unmatched'), unmatchedColor)}
        {meta.overflowCheck &&
          OVERFLOW_LEVELS.map((level) => box(`overflow-${level}`, t('filter.overflow', { level: t(`overflow.${level}` as MessageKey) })))}
      </ul>
      <label className="pb-filter__choice">
        <input type="checkbox" data-testid="filter-leaves" checked={leaves} onChange={(e) => setLeaves(e.target.checked)} />
        <span>{t('filter.leaves')}</span>
      </label>
      <FoundList testId="filter" state={state} onPick={pick} onOrder={setOrder} reveal note={hint} />
    </section>
  );
}
