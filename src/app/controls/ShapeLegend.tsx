import { useT, type MessageKey } from '../i18n/i18n.js';
import { DataflowToggle } from './DataflowToggle.js';

/**
 * The node-shape bar above the panes. Shapes mirror the canvas's visual grammar (reference-viewer.md §3.3):
 * module = rounded box, leaf = ellipse, API list = long dashes, fusion collection = short dashes. It also holds the
 * msprobe graphs' "Dataflow (inferred)" switch (issue 16).
 */
interface ShapeEntry {
  label: MessageKey;
  tip: MessageKey;
  shape: 'module' | 'leaf' | 'apiList' | 'fusion';
}

const entries: ShapeEntry[] = [
  { label: 'legend.module', tip: 'legend.moduleTip', shape: 'module' },
  { label: 'legend.leaf', tip: 'legend.leafTip', shape: 'leaf' },
  { label: 'legend.apiList', tip: 'legend.apiListTip', shape: 'apiList' },
  { label: 'legend.fusion', tip: 'legend.fusionTip', shape: 'fusion' },
];

function ShapeIcon({ shape }: { shape: ShapeEntry['shape'] }) {
  const common = { fill: 'var(--pb-shape-fill)', stroke: 'var(--pb-shape-stroke)', strokeWidth: 1.2 };
  return (
    <svg className="pb-shape" width="34" height="18" viewBox="0 0 34 18" aria-hidden="true">
      {shape === 'leaf' ? (
        <ellipse cx="17" cy="9" rx="15" ry="7" {...common} />
      ) : (
        <rect
          x="2"
          y="2"
          width="30"
          height="14"
          rx={shape === 'module' ? 4 : 0}
          {...common}
          strokeDasharray={shape === 'apiList' ? '6,1.5' : shape === 'fusion' ? '2,1' : undefined}
        />
      )}
    </svg>
  );
}

export function ShapeLegend() {
  const t = useT();
  return (
    <div className="pb-shapes" data-testid="shape-legend">
      {entries.map((e) => (
        <span key={e.shape} className="pb-shapes__item" title={t(e.tip)} data-shape={e.shape}>
          <ShapeIcon shape={e.shape} />
          {t(e.label)}
        </span>
      ))}
      <DataflowToggle />
    </div>
  );
}
