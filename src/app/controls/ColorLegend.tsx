import { WHITE } from '../../core/colors/nodePaint.js';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { bucketLabel, taskMeaningKey } from './bucketLabel.js';

/**
 * The file's colour buckets with what the number means for this file's task (summary / md5 / real data /
 * structure), because the same colour means opposite things in md5 mode (1 = pass) and statistics mode (1 = bad).
 */
export function ColorLegend() {
  const t = useT();
  const meta = useAppStore((s) => s.meta);
  if (!meta) return null;
  if (meta.graphType === 'build') {
    return (
      <section className="pb-legend" data-testid="color-legend">
        <p className="pb-legend__meaning">{t('legend.build')}</p>
      </section>
    );
  }
  return (
    <section className="pb-legend" data-testid="color-legend">
      <p className="pb-legend__meaning" data-testid="task-meaning">
        {t(taskMeaningKey(meta.task))}
      </p>
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
      <p className="pb-legend__note">{t('legend.benchNeutral')}</p>
    </section>
  );
}
