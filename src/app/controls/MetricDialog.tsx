import { useState } from 'react';
import { PRECISION_METRICS, type PrecisionMetric } from '../../core/api/overlay.js';
import { useT } from '../i18n/i18n.js';
import { chooseMetrics } from '../state/overlayActions.js';
import { useOverlayStore } from '../state/overlayStore.js';
import { OverlayDialog } from './OverlayDialog.js';

/**
 * The metric dialog (reference-viewer.md §3.4, statistics mode): which relative errors make the precision index.
 * Applying registers the choice with the server, which recomputes every index; the graphs are recoloured in place.
 */
export function MetricDialog({ onClose }: { onClose: () => void }) {
  const t = useT();
  const current = useOverlayStore((s) => s.doc.metrics) ?? PRECISION_METRICS;
  const [chosen, setChosen] = useState<ReadonlySet<PrecisionMetric>>(() => new Set(current));
  const toggle = (metric: PrecisionMetric) =>
    setChosen((now) => {
      const next = new Set(now);
      if (!next.delete(metric)) next.add(metric);
      return next;
    });
  return (
    <OverlayDialog
      title={t('metric.title')}
      testId="metric-dialog"
      onClose={onClose}
      actions={
        <>
          <span className="pb-dialog__spacer" />
          <button type="button" data-testid="metric-cancel" onClick={onClose}>
            {t('dialog.cancel')}
          </button>
          <button
            type="button"
            className="pb-dialog__primary"
            data-testid="metric-apply"
            disabled={chosen.size === 0}
            onClick={() => {
              onClose();
              void chooseMetrics([...chosen]);
            }}
          >
            {t('dialog.apply')}
          </button>
        </>
      }
    >
      <p className="pb-legend__note">{t('metric.hint')}</p>
      <ul className="pb-filter__choices">
        {PRECISION_METRICS.map((metric) => (
          <li key={metric}>
            <label className="pb-filter__choice">
              <input type="checkbox" data-testid={`metric-${metric}`} checked={chosen.has(metric)} onChange={() => toggle(metric)} />
              <span>{metric}</span>
            </label>
          </li>
        ))}
      </ul>
      {chosen.size === 0 && (
        <p className="pb-found__hint" role="alert">
          {t('metric.needOne')}
        </p>
      )}
    </OverlayDialog>
  );
}
