import { useState } from 'react';
import { usePointerDrag } from '../controls/usePointerDrag.js';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { IoTable } from './IoTable.js';
import { NodeInfoTab } from './NodeInfoTab.js';

type Tab = 'io' | 'node';

/** Drag handle on the panel's top edge; the graphs above take whatever height is left. */
function ResizeHandle() {
  const t = useT();
  const setHeight = useAppStore((s) => s.setInfoHeight);
  const drag = usePointerDrag(
    (e) => ({ y: e.clientY, height: useAppStore.getState().infoHeight }),
    (e, start) => setHeight(Math.min(window.innerHeight - 120, start.height + start.y - e.clientY)),
  );
  return (
    <div
      className="pb-info__resize"
      role="separator"
      aria-orientation="horizontal"
      aria-label={t('info.resize')}
      data-testid="info-resize"
      {...drag}
    />
  );
}

export function InfoPanel() {
  const t = useT();
  const [tab, setTab] = useState<Tab>('io');
  const height = useAppStore((s) => s.infoHeight);
  const meta = useAppStore((s) => s.meta);
  const selection = useAppStore((s) => s.selection);
  const details = useAppStore((s) => s.details);
  const compare = meta?.graphType === 'compare';

  let body;
  if (!selection && !details.loading) body = <p className="pb-info__empty">{t('info.none')}</p>;
  else if (details.loading) body = <p className="pb-info__empty">{t('info.loading')}</p>;
  else if (tab === 'io')
    body = <IoTable npu={details.npu} bench={details.bench} compare={compare} toolTips={meta?.toolTips ?? {}} />;
  else body = <NodeInfoTab npu={details.npu} bench={details.bench} compare={compare} />;

  const npuId = details.npu?.id ?? (selection?.side === 'npu' ? selection.id : selection?.counterpartId);
  const benchId = details.bench?.id ?? (selection?.side === 'bench' ? selection.id : selection?.counterpartId);

  return (
    <section className="pb-info" style={{ height }} data-testid="info-panel">
      <ResizeHandle />
      <div className="pb-info__bar">
        <div className="pb-tabs" role="tablist">
          <button type="button" role="tab" aria-selected={tab === 'io'} data-testid="info-tab-io" onClick={() => setTab('io')}>
            {t(compare ? 'info.tab.compare' : 'info.tab.details')}
          </button>
          <button type="button" role="tab" aria-selected={tab === 'node'} data-testid="info-tab-node" onClick={() => setTab('node')}>
            {t('info.tab.nodeInfo')}
          </button>
        </div>
        {selection && (
          <div className="pb-info__nodes" data-testid="info-nodes">
            {compare ? (
              <>
                <span data-testid="info-npu-node">{t('info.npuNode', { id: npuId ?? t('info.noCounterpart') })}</span>
                <span data-testid="info-bench-node">{t('info.benchNode', { id: benchId ?? t('info.noCounterpart') })}</span>
                <span className="pb-info__markers">
                  <span>
                    <span className="pb-dot" data-matched="true" />
                    {t('info.matched')}
                  </span>
                  <span>
                    <span className="pb-dot" data-matched="false" />
                    {t('info.unmatched')}
                  </span>
                </span>
              </>
            ) : (
              <span data-testid="info-npu-node">{t('info.node', { id: selection.id })}</span>
            )}
          </div>
        )}
      </div>
      <div className="pb-info__body" role="tabpanel">
        {body}
      </div>
    </section>
  );
}
