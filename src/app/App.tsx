import { useCallback } from 'react';
import type { Side } from '../core/api/types.js';
import { client } from './api/client.js';
import { ErrorBanner } from './controls/ErrorBanner.js';
import { IndexingProgress } from './controls/IndexingProgress.js';
import { ShapeLegend } from './controls/ShapeLegend.js';
import { Sidebar } from './controls/Sidebar.js';
import { Splitter } from './controls/Splitter.js';
import { useT } from './i18n/i18n.js';
import { GraphPane } from './pane/GraphPane.js';
import type { FetchChildren, PageRequest } from './pane/paneController.js';
import { InfoPanel } from './panels/InfoPanel.js';
import { useAppStore } from './state/appStore.js';

/** NPU | splitter | Bench for compare files, one pane for build files (each pane resets itself per file and micro step). */
function GraphArea() {
  const t = useT();
  const meta = useAppStore((s) => s.meta);
  const run = useAppStore((s) => s.run);
  const tag = useAppStore((s) => s.tag);
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
    (side: Side, nodeId: string, page?: PageRequest) =>
      client.children({ run: run ?? '', tag: tag ?? '', step, rank }, side, nodeId, { micro, ...page }),
    [run, tag, step, rank, micro],
  );

  if (!meta || run === null || tag === null) {
    let message = t('app.noFile');
    if (!runsLoaded || metaLoading) message = t('app.loading');
    else if (!hasFiles) message = t('app.noFiles', { logdir });
    else if (run !== null && failed) message = t('app.fileFailed');
    return (
      <div className="pb-panes pb-panes--empty" data-testid="panes-empty">
        <p>{message}</p>
      </div>
    );
  }
  if (meta.graphType === 'build') {
    return (
      <div className="pb-panes" data-graph-type="build">
        <div className="pb-pane-slot" style={{ flexBasis: '100%' }} aria-label={t('pane.single')}>
          <GraphPane side="npu" fetchChildren={fetchChildren} />
        </div>
      </div>
    );
  }
  return (
    <div className="pb-panes" data-graph-type="compare">
      <div className="pb-pane-slot" style={{ flexBasis: `${ratio * 100}%` }} aria-label={t('pane.npu')}>
        <div className="pb-pane-caption">{t('pane.npu')}</div>
        <GraphPane side="npu" fetchChildren={fetchChildren} />
      </div>
      <Splitter />
      <div className="pb-pane-slot" style={{ flexBasis: `${(1 - ratio) * 100}%` }} aria-label={t('pane.bench')}>
        <div className="pb-pane-caption">{t('pane.bench')}</div>
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
        <InfoPanel />
      </main>
    </div>
  );
}
