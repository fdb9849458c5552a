import { dataflowApplies } from '../commands/dataflow.js';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';

/** One edge style as the panes draw it (pane/graphPane.css `.pb-edge`, `.pb-edge--control`). */
function EdgeIcon({ control }: { control: boolean }) {
  return (
    <svg className="pb-shape" width="34" height="18" viewBox="0 0 34 18" aria-hidden="true">
      <path className={control ? 'pb-edge pb-edge--control' : 'pb-edge'} d="M2,9 H28" strokeWidth={1.5} />
      <path className="pb-edge-arrow" d="M27,5 L33,9 L27,13 z" />
    </svg>
  );
}

/** The legend's entries for the edges a TensorBoard-side graph records: data solid, control dependencies dashed. */
export function RecordedEdgeLegend() {
  const t = useT();
  const recorded = useAppStore((s) => s.meta !== null && !dataflowApplies(s.meta.format));
  if (!recorded) return null;
  return (
    <div data-testid="legend-edges">
      <p className="pb-legend__edge" title={t('legend.dataEdgeTip')}>
        <EdgeIcon control={false} />
        <span>{t('legend.dataEdge')}</span>
      </p>
      <p className="pb-legend__edge" title={t('legend.controlEdgeTip')}>
        <EdgeIcon control />
        <span>{t('legend.controlEdge')}</span>
      </p>
    </div>
  );
}
