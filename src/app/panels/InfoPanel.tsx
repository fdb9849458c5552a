import { useMemo, useState } from 'react';
import type { ColorBucket, NodeDetail, Task } from '../../core/api/types.js';
import { ioCsvFile } from '../commands/exportCsv.js';
import { bucketLabel } from '../controls/bucketLabel.js';
import { CsvButton } from '../controls/CsvButton.js';
import { usePointerDrag } from '../controls/usePointerDrag.js';
import { useT, type MessageKey, type Translate } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { IoTable } from './IoTable.js';
import type { ColumnWidths } from './ioRows.js';
import { CommunicationTab, hasPeers } from './CommunicationTab.js';
import { NodeInfoTab } from './NodeInfoTab.js';
import { TbNodeDetails } from './TbNodeDetails.js';
import { bucketOf, driverReason, formatPrecision, precisionDriver, type PrecisionDriver } from './precisionDriver.js';
import { nanRuleOnIdentical } from '../../core/compare/divergence.js';

const OVERFLOW_NAMES = new Set(['medium', 'high', 'critical']);

/** An overflow level from the file in the UI language (unknown levels verbatim). */
export function overflowName(t: Translate, level: string): string {
  const key = level.toLowerCase();
  return OVERFLOW_NAMES.has(key) ? t(`overflow.${key}` as MessageKey) : level;
}

/** The rule, the marked cells and the sentence explaining them, for the NPU node of the selection. */
function useDriver(npu: NodeDetail | null, task: Task, t: Translate): { driver: PrecisionDriver; reason: string } | null {
  return useMemo(() => {
    if (!npu || npu.precisionIndex === null) return null;
    const driver = precisionDriver(npu, task);
    const why = driverReason(driver, npu);
    let reason = t(why.key, why.vars);
    if (!driver.agrees && driver.computed !== null)
      reason += `\n${t('info.driverDisagrees', { computed: formatPrecision(driver.computed), value: formatPrecision(npu.precisionIndex) })}`;
    return { driver, reason };
  }, [npu, task, t]);
}

/** `Precision index ■ 0.9448 [0.8, 1]` in the header: the value that colours the node, its bucket and why. */
function PrecisionBadge({ value, colors, task, reason }: { value: number; colors: ColorBucket[]; task: Task; reason: string }) {
  const t = useT();
  const bucket = bucketOf(colors, value);
  const label = bucket ? bucketLabel(bucket, task) : null;
  const labelText = label ? ('text' in label ? label.text : t(label.key, label.vars)) : '';
  return (
    <span className="pb-info__precision" data-testid="info-precision" data-value={value} title={reason}>
      <span>{t('info.precision')}</span>
      {bucket && <span className="pb-swatch" data-testid="info-precision-swatch" data-color={bucket.color} style={{ backgroundColor: bucket.color }} />}
      <strong data-testid="info-precision-value">{formatPrecision(value)}</strong>
      {labelText && <span className="pb-info__bucket" data-testid="info-precision-bucket">{labelText}</span>}
    </span>
  );
}

type Tab = 'io' | 'node' | 'comm';

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
  const task = meta?.task ?? '';
  const driven = useDriver(compare ? details.npu : null, task, t);
  const overflowLevel = details.npu?.overflowLevel ?? details.bench?.overflowLevel ?? null;
  // Column widths dragged in the table, kept while the same file is open (any node, either tab) and dropped with it.
  const fileKey = useAppStore((s) => `${s.run}\u0000${s.tag}\u0000${s.format ?? ''}`);
  const [columnWidths, setColumnWidths] = useState<{ file: string; widths: ColumnWidths }>({ file: '', widths: {} });
  const widths = columnWidths.file === fileKey ? columnWidths.widths : {};

  let body;
  if (!selection && !details.loading) body = <p className="pb-info__empty">{t('info.none')}</p>;
  else if (details.loading) body = <p className="pb-info__empty">{t('info.loading')}</p>;
  else if (tab === 'io') {
    body = (
      <IoTable
        npu={details.npu}
        bench={details.bench}
        compare={compare}
        toolTips={meta?.toolTips ?? {}}
        driver={driven ? { cells: driven.driver.cells, reason: driven.reason } : null}
        widths={widths}
        onWidths={(next) => setColumnWidths({ file: fileKey, widths: next })}
      />
    );
    // A TensorBoard / ONNX node: its op, device and attributes around the same input/output table (issue 16).
    if (details.npu?.tb) body = <TbNodeDetails info={details.npu.tb} io={body} />;
  }
  else if (tab === 'comm') body = <CommunicationTab npu={details.npu} bench={details.bench} compare={compare} />;
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
          {hasPeers(details.npu, details.bench) && (
            <button type="button" role="tab" aria-selected={tab === 'comm'} data-testid="info-tab-comm" onClick={() => setTab('comm')}>
              {t('comm.tab')}
            </button>
          )}
        </div>
        {tab === 'io' && !details.loading && (details.npu || details.bench) && (
          <CsvButton testId="info-csv" title={t('csv.ioTip')} build={() => ioCsvFile(details.npu, details.bench, compare, t, useAppStore.getState())} />
        )}
        {selection && (
          <div className="pb-info__nodes" data-testid="info-nodes">
            {compare ? (
              <>
                <span className="pb-info__node" data-testid="info-npu-node" title={npuId ?? undefined}>
                  {t('info.npuNode', { id: npuId ?? t('info.noCounterpart') })}
                </span>
                <span className="pb-info__node" data-testid="info-bench-node" title={benchId ?? undefined}>
                  {t('info.benchNode', { id: benchId ?? t('info.noCounterpart') })}
                </span>
                {driven && details.npu?.precisionIndex != null && (
                  <PrecisionBadge value={details.npu.precisionIndex} colors={meta?.colors ?? []} task={task} reason={driven.reason} />
                )}
                {driven && details.npu && nanRuleOnIdentical(driven.driver, details.npu, details.bench) && (
                  <span className="pb-info__bucket" data-testid="info-nan-identical">
                    {t('info.nanRuleIdentical')}
                  </span>
                )}
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
              <span className="pb-info__node" data-testid="info-npu-node" title={selection.id}>
                {t('info.node', { id: selection.id })}
              </span>
            )}
            {overflowLevel && (
              <span className="pb-info__overflow" data-testid="info-overflow" data-level={overflowLevel}>
                {t('info.overflow')}: <strong>{overflowName(t, overflowLevel)}</strong>
              </span>
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
