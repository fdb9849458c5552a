import { useMemo, useState } from 'react';
import type { ColorBucket } from '../../core/api/types.js';
import {
  BUCKET_PALETTE,
  defaultBuckets,
  isUnmatchedBucket,
  MAX_BUCKETS,
  unmatchedColor,
  validateBuckets,
  type BucketProblem,
} from '../../core/colors/buckets.js';
import { useT, type MessageKey, type Translate } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { chooseColors } from '../state/overlayActions.js';
import { useOverlayStore } from '../state/overlayStore.js';
import { OverlayDialog } from './OverlayDialog.js';

/** One row as typed: bounds stay text until applied, so "0." can be typed on the way to "0.25". */
interface Row {
  color: string;
  lo: string;
  hi: string;
}

const rowsOf = (buckets: readonly ColorBucket[]): Row[] =>
  buckets
    .filter((b) => !isUnmatchedBucket(b) && Array.isArray(b.value) && b.value.length === 2)
    .map((b) => ({ color: b.color.toUpperCase(), lo: String((b.value as number[])[0]), hi: String((b.value as number[])[1]) }));

const boundOf = (text: string) => (text.trim() === '' ? NaN : Number(text));

/** The rows as buckets, each keeping the description its colour had in the file (the legend's tooltip). */
function bucketsOf(rows: readonly Row[], fileColors: readonly ColorBucket[]): ColorBucket[] {
  const fallback = fileColors.find((b) => !isUnmatchedBucket(b))?.description ?? '';
  return rows.map((r) => ({
    color: r.color,
    value: [boundOf(r.lo), boundOf(r.hi)],
    description: fileColors.find((b) => b.color.toUpperCase() === r.color)?.description ?? fallback,
  }));
}

/** A core/colors/buckets.ts problem in the user's words; buckets are counted from 1 as the rows show them. */
export function problemText(t: Translate, p: BucketProblem): string {
  const key = `colors.problem.${p.code}` as MessageKey;
  switch (p.code) {
    case 'noBuckets':
      return t(key);
    case 'tooManyBuckets':
      return t(key, { count: p.count });
    case 'colorNotInPalette':
      return t(key, { n: p.index + 1, color: p.color });
    case 'colorRepeated':
      return t(key, { n: p.index + 1, first: p.first + 1 });
    case 'overlap':
      return t(key, { n: p.index + 1, other: p.other + 1 });
    case 'boundOutOfRange':
    case 'tooManyDecimals':
      return t(key, { n: p.index + 1, bound: t(p.bound === 0 ? 'colors.boundLo' : 'colors.boundHi') });
    default:
      return t(key, { n: p.index + 1 });
  }
}

/**
 * The colour editor (reference-viewer.md §3.4): up to five buckets, each a palette colour used once and a
 * left-closed right-open range; the core's validateBuckets says what is wrong, row by row, and Apply stays off until
 * nothing is. Default = msprobe's buckets for the task; Reset = the file's own. The unmatched grey is not edited.
 */
export function ColorEditor({ onClose }: { onClose: () => void }) {
  const t = useT();
  const meta = useAppStore((s) => s.meta)!;
  const fileColors = useOverlayStore((s) => s.fileColors);
  const [rows, setRows] = useState<Row[]>(() => rowsOf(meta.colors));
  const buckets = useMemo(() => bucketsOf(rows, fileColors), [rows, fileColors]);
  const problems = useMemo(() => validateBuckets(buckets), [buckets]);
  const rowProblem = (i: number) => problems.some((p) => 'index' in p && p.index === i);

  const update = (i: number, patch: Partial<Row>) => setRows((now) => now.map((r, k) => (k === i ? { ...r, ...patch } : r)));
  const add = () =>
    setRows((now) => {
      const free = BUCKET_PALETTE.find((c) => !now.some((r) => r.color === c));
      // Starts where the highest range ends, the usual next step; the user types the rest.
      const top = now.reduce((max, r) => Math.max(max, boundOf(r.hi) || 0), 0);
      const row = top < 1 ? { lo: String(top), hi: '1' } : { lo: '', hi: '' };
      return free && now.length < MAX_BUCKETS ? [...now, { color: free, ...row }] : now;
    });

  return (
    <OverlayDialog
      title={t('colors.title')}
      testId="color-editor"
      onClose={onClose}
      actions={
        <>
          <button type="button" data-testid="color-preset-default" title={t('colors.presetDefaultTip')} onClick={() => setRows(rowsOf(defaultBuckets(meta.task)))}>
            {t('colors.presetDefault')}
          </button>
          <button
            type="button"
            data-testid="color-reset"
            title={t('colors.resetTip')}
            onClick={() => {
              onClose();
              void chooseColors(null);
            }}
          >
            {t('colors.reset')}
          </button>
          <span className="pb-dialog__spacer" />
          <button type="button" data-testid="color-cancel" onClick={onClose}>
            {t('dialog.cancel')}
          </button>
          <button
            type="button"
            className="pb-dialog__primary"
            data-testid="color-apply"
            disabled={problems.length > 0}
            onClick={() => {
              onClose();
              void chooseColors(buckets);
            }}
          >
            {t('dialog.apply')}
          </button>
        </>
      }
    >
      <p className="pb-legend__note">{t('colors.hint')}</p>
      <table className="pb-colors__table">
        <thead>
          <tr>
            <th scope="col">{t('colors.colColor')}</th>
            <th scope="col">{t('colors.colLo')}</th>
            <th scope="col">{t('colors.colHi')}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i} data-testid={`color-row-${i}`} data-invalid={rowProblem(i) || undefined}>
              <td>
                <div className="pb-colors__palette" role="radiogroup" aria-label={t('colors.colColor')}>
                  {BUCKET_PALETTE.map((color) => {
                    const taken = rows.some((r, k) => k !== i && r.color === color);
                    return (
                      <button
                        key={color}
                        type="button"
                        role="radio"
                        aria-checked={row.color === color}
                        className="pb-colors__swatch"
                        data-color={color}
                        disabled={taken}
                        style={{ backgroundColor: color }}
                        title={t('colors.pickColor', { color })}
                        aria-label={t('colors.pickColor', { color })}
                        onClick={() => update(i, { color })}
                      />
                    );
                  })}
                </div>
              </td>
              <td>
                <input className="pb-colors__bound" data-testid={`color-lo-${i}`} inputMode="decimal" value={row.lo} aria-label={t('colors.colLo')} onChange={(e) => update(i, { lo: e.target.value })} />
              </td>
              <td>
                <input className="pb-colors__bound" data-testid={`color-hi-${i}`} inputMode="decimal" value={row.hi} aria-label={t('colors.colHi')} onChange={(e) => update(i, { hi: e.target.value })} />
              </td>
              <td>
                <button type="button" data-testid={`color-remove-${i}`} title={t('colors.remove')} aria-label={t('colors.remove')} onClick={() => setRows((now) => now.filter((_, k) => k !== i))}>
                  −
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" data-testid="color-add" disabled={rows.length >= MAX_BUCKETS || rows.length >= BUCKET_PALETTE.length} onClick={add}>
        {t('colors.add')}
      </button>
      <p className="pb-legend__note">
        <span className="pb-swatch" style={{ backgroundColor: unmatchedColor(fileColors) }} /> {t('colors.unmatched', { color: unmatchedColor(fileColors) })}
      </p>
      {problems.length > 0 && (
        <ul className="pb-colors__problems" data-testid="color-problems" role="alert">
          {problems.map((p, i) => (
            <li key={i} data-code={p.code}>
              {problemText(t, p)}
            </li>
          ))}
        </ul>
      )}
    </OverlayDialog>
  );
}
