import { useState } from 'react';
import { WHITE } from '../../core/colors/nodePaint.js';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { useOverlayStore } from '../state/overlayStore.js';
import { bucketLabel, taskMeaningKey } from './bucketLabel.js';
import { ColorEditor } from './ColorEditor.js';
import { InferredEdgeLegend } from './DataflowToggle.js';
import { RecordedEdgeLegend } from './EdgeLegend.js';
import { MetricDialog } from './MetricDialog.js';

/**
 * The file's colour buckets with what the number means for this file's task (summary / md5 / real data /
 * structure), because the same colour means opposite things in md5 mode (1 = pass) and statistics mode (1 = bad).
 */
export function ColorLegend() {
  const t = useT();
  const meta = useAppStore((s) => s.meta);
  const edited = useOverlayStore((s) => s.doc.colors !== null);
  const metrics = useOverlayStore((s) => s.doc.metrics);
  const [dialog, setDialog] = useState<'colors' | 'metrics' | null>(null);
  if (!meta) return null;
  if (meta.graphType === 'build') {
    return (
      <section className="pb-legend" data-testid="color-legend">
        <p className="pb-legend__meaning">{t('legend.build')}</p>
        <RecordedEdgeLegend />
        <InferredEdgeLegend />
      </section>
    );
  }
  return (
    <section className="pb-legend" data-testid="color-legend">
      <p className="pb-legend__meaning" data-testid="task-meaning">
        {t(taskMeaningKey(meta.task))}
      </p>
      {/* Issue 15: the reference's cog (colour editor) and funnel (metric dialog, statistics mode only). */}
      <div className="pb-legend__tools">
        <button type="button" data-testid="color-edit" title={t('colors.editTip')} onClick={() => setDialog('colors')}>
          {t('colors.edit')}
        </button>
        {meta.task === 'summary' && (
          <button type="button" data-testid="metric-edit" title={t('metric.editTip')} onClick={() => setDialog('metrics')}>
            {t('metric.edit')}
          </button>
        )}
      </div>
      {metrics && (
        <p className="pb-legend__note" data-testid="metric-chosen">
          {t('metric.chosen', { list: metrics.join(', ') })}
        </p>
      )}
      {edited && (
        <p className="pb-legend__note" data-testid="colors-edited">
          {t('colors.edited')}
        </p>
      )}
      {dialog === 'colors' && <ColorEditor onClose={() => setDialog(null)} />}
      {dialog === 'metrics' && <MetricDialog onClose={() => setDialog(null)} />}
      {meta.colors.length === 0 && <p className="pb-legend__note">{t('legend.noColors')}</p>}
      <ul className="pb-legend__buckets">
        {meta.colors.map((bucket) => {
          const label = bucketLabel(bucket, meta.task);
          return (
            <li key={bucket.color} className="pb-legend__bucket" title={bucket.description} data-color={bucket.color}>
              <span className="pb-swatch" style={{ backgroundColor: bucket.color }} />
              <span>{'text' in label ? label.text : t(label.key, label.vars)}</span>
            </li>
          );
        })}
        <li className="pb-legend__bucket">
          <span className="pb-swatch" style={{ backgroundColor: WHITE }} />
          <span>{t('legend.noValue')}</span>
        </li>
      </ul>
      <InferredEdgeLegend />
      <p className="pb-legend__note">{t('legend.benchNeutral')}</p>
    </section>
  );
}
