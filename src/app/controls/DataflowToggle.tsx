import { dataflowApplies } from '../commands/dataflow.js';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { setDataflow } from '../state/dataflowActions.js';

/** Whether the open file is an msprobe graph with issue 16's inferred dataflow turned on. */
const useDataflowShown = () => useAppStore((s) => s.dataflow && dataflowApplies(s.meta?.format));

/**
 * "Dataflow (inferred)" (issue 16): msprobe files record no edges, so this asks the server to infer them from
 * matching output / input fingerprints (src/core/dataflow/inferEdges.ts). Kept in the link (`dataflow=1`). Not shown
 * for TensorBoard-side graphs, whose edges are in the file.
 */
export function DataflowToggle() {
  const t = useT();
  const on = useAppStore((s) => s.dataflow);
  const applies = useAppStore((s) => dataflowApplies(s.meta?.format));
  if (!applies) return null;
  return (
    <button
      type="button"
      className="pb-dataflow-toggle"
      data-testid="dataflow-toggle"
      aria-pressed={on}
      title={t('dataflow.toggleTip')}
      onClick={() => setDataflow(!on)}
    >
      <InferredEdgeIcon />
      {t('dataflow.toggle')}
    </button>
  );
}

/** The inferred-edge style as the panes draw it (pane/graphPane.css `.pb-edge--inferred`). */
function InferredEdgeIcon() {
  return (
    <svg className="pb-shape" width="34" height="18" viewBox="0 0 34 18" aria-hidden="true">
      <path className="pb-edge pb-edge--inferred" d="M2,9 H28" strokeWidth={1.5} />
      <path className="pb-edge--inferred-arrow" d="M27,5 L33,9 L27,13 z" />
    </svg>
  );
}

/** The colour legend's entry for inferred edges, while they are shown. */
export function InferredEdgeLegend() {
  const t = useT();
  if (!useDataflowShown()) return null;
  return (
    <p className="pb-legend__edge" data-testid="legend-inferred" title={t('legend.inferredTip')}>
      <InferredEdgeIcon />
      <span>{t('legend.inferred')}</span>
    </p>
  );
}
