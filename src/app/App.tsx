import { useCallback, type ReactNode } from 'react';
import type { Side } from '../core/api/types.js';
import { client } from './api/client.js';
import { dataflowParam } from './commands/dataflow.js';
import { ErrorBanner } from './controls/ErrorBanner.js';
import { ExportMenu } from './controls/ExportMenu.js';
import { IndexingProgress } from './controls/IndexingProgress.js';
import { ShapeLegend } from './controls/ShapeLegend.js';
import { ShortcutsOverlay } from './controls/ShortcutsOverlay.js';
import { Sidebar } from './controls/Sidebar.js';
import { Splitter } from './controls/Splitter.js';
import { useT } from './i18n/i18n.js';
import { GraphPane } from './pane/GraphPane.js';
import type { FetchChildren, PageRequest } from './pane/paneController.js';
import { InfoPanel } from './panels/InfoPanel.js';
import { useAppStore } from './state/appStore.js';
import { isEmptyGraph } from './state/fileChoice.js';

/**
 * Why the selected node's records could not be loaded (server gone, node missing), over the info panel's body on
 * either tab, instead of an empty table that reads "This node has no inputs or outputs."
 */
const useInfoError = () => useAppStore((s) => (s.selection && !s.details.loading ? (s.details.error ?? null) : null));

/** Holds the info panel; while its records failed to load, the panel's body is hidden under the error. */
function InfoSlot({ children }: { children: ReactNode }) {
  const failed = useInfoError() !== null;
  return (
    <div className="pb-info-slot" data-info-error={failed ? 'true' : undefined}>
      {children}
    </div>
  );
}

function InfoError() {
  const error = useInfoError();
  if (!error) return null;
  return (
    <div className="pb-info-error" role="alert" data-testid="info-error">
      {error}
    </div>
  );
}

/** NPU | splitter | Bench for compare files, one pane for build files (each pane resets itself per file and micro step). */
function GraphArea() {
  const t = useT();
  const meta = useAppStore((s) => s.meta);
  const run = useAppStore((s) => s.run);
  const tag = useAppStore((s) => s.tag);
  const format = useAppStore((s) => s.format);
  const micro = useAppStore((s) => s.micro);
  const step = useAppStore((s) => s.step);
  const rank = useAppStore((s) => s.rank);
  const metaLoading = useAppStore((s) => s.metaLoading);
  const runsLoaded = useAppStore((s) => s.runsLoaded);
  const hasFiles = useAppStore((s) => s.runs.some((r) => r.tags.length > 0));
  const failed = useAppStore((s) => s.error !== null);
  const logdir = useAppStore((s) => s.logdir);
  const ratio = useAppStore((s) => s.splitRatio);

  const fetchChildren = useCallback<FetchChildren>(
    (side: Side, nodeId: string, page?: PageRequest) => {
      // Read per request: a toggle resets the panes at once (state/dataflowActions.ts), before React re-renders.
      const { dataflow, meta: now } = useAppStore.getState();
      const options = { micro, dataflow: dataflowParam(dataflow, now?.format), ...page };
      return client.children({ run: run ?? '', tag: tag ?? '', format, step, rank }, side, nodeId, options);
    },
    [run, tag, format, step, rank, micro],
  );

  if (!meta || run === null || tag === null) {
    let message = t('app.noFile');
    if (!runsLoaded || metaLoading) message = t('app.loading');
    else if (!hasFiles) message = t('app.noFilesAny', { logdir });
    else if (run !== null && failed) message = t('app.fileFailed');
    return (
      <div className="pb-panes pb-panes--empty" data-testid="panes-empty">
        <p>{message}</p>
      </div>
    );
  }
  if (isEmptyGraph(meta)) {
    // A `.vis.db` need not hold every step × rank its lists name: say so instead of two blank panes.
    return (
      <div className="pb-panes pb-panes--empty" data-testid="panes-empty" data-empty-graph="true">
        <p role="status">{t('app.noGraph', { step: step ?? meta.steps[0] ?? 0, rank: rank ?? meta.ranks[0] ?? 0 })}</p>
      </div>
    );
  }
  if (meta.graphType === 'build') {
    return (
      <div className="pb-panes" data-graph-type="build">
        <div className="pb-pane-slot" style={{ flexBasis: '100%' }} aria-label={t('pane.single')}>
          <ExportMenu side="npu" />
          <GraphPane side="npu" fetchChildren={fetchChildren} />
        </div>
      </div>
    );
  }
  return (
    <div className="pb-panes" data-graph-type="compare">
      <div className="pb-pane-slot" style={{ flexBasis: `${ratio * 100}%` }} aria-label={t('pane.npu')}>
        <div className="pb-pane-caption">{t('pane.npu')}</div>
        <ExportMenu side="npu" />
        <GraphPane side="npu" fetchChildren={fetchChildren} />
      </div>
      <Splitter />
      <div className="pb-pane-slot" style={{ flexBasis: `${(1 - ratio) * 100}%` }} aria-label={t('pane.bench')}>
        <div className="pb-pane-caption">{t('pane.bench')}</div>
        <ExportMenu side="bench" />
        <GraphPane side="bench" fetchChildren={fetchChildren} />
      </div>
    </div>
  );
}

export function App() {
  return (
    <div className="pb-app">
      <Sidebar />
      <main className="pb-main">
        <ErrorBanner />
        <IndexingProgress />
        <ShapeLegend />
        <GraphArea />
        <InfoSlot>
          <InfoPanel />
          <InfoError />
        </InfoSlot>
      </main>
      <ShortcutsOverlay />
    </div>
  );
}
