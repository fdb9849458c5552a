import { useState, type ReactNode } from 'react';
import type { TbNodeInfo, TbRunStats } from '../../core/api/types.js';
import { formatBytes } from '../controls/IndexingProgress.js';
import { useT, type MessageKey } from '../i18n/i18n.js';

/**
 * A TensorBoard / ONNX node's details (issue 16), as TensorBoard's node info shows them: op type, device,
 * attributes, inputs and outputs with shapes (the `io` table, passed in), and the event file's run metadata for the
 * node. Long attribute values are cut to a preview and the list to its first rows; "Show all" shows everything the
 * server sent (it cuts a value at 1,024 characters and says so). React escapes every value shown.
 */

/** Characters of an attribute value shown before "Show all". */
export const ATTR_PREVIEW = 120;
/** Attribute rows shown before "Show all". */
export const ATTR_ROWS = 12;

function Fact({ label, value, testId }: { label: string; value: ReactNode; testId: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}</dd>
    </>
  );
}

function Attributes({ attrs }: { attrs: TbNodeInfo['attrs'] }) {
  const t = useT();
  const [all, setAll] = useState(false);
  const long = attrs.length > ATTR_ROWS || attrs.some((a) => a.value.length > ATTR_PREVIEW || a.truncated);
  const rows = all ? attrs : attrs.slice(0, ATTR_ROWS);
  return (
    <div className="pb-block">
      <div className="pb-block__head">
        <h4>{t('tbnode.attrs', { count: attrs.length })}</h4>
        {long && (
          <button type="button" className="pb-copy" data-testid="tb-attrs-toggle" aria-pressed={all} title={t('tbnode.showAllTip')} onClick={() => setAll(!all)}>
            {t(all ? 'tbnode.showLess' : 'tbnode.showAll')}
          </button>
        )}
      </div>
      {attrs.length === 0 ? (
        <p className="pb-info__empty">{t('info.empty')}</p>
      ) : (
        <table className="pb-tbnode__attrs" data-testid="tb-attrs">
          <tbody>
            {rows.map((a) => {
              const cut = !all && a.value.length > ATTR_PREVIEW;
              return (
                <tr key={a.key} data-attr={a.key}>
                  <th scope="row">{a.key}</th>
                  <td>
                    <span className="pb-tbnode__value" data-testid="tb-attr-value">
                      {cut ? a.value.slice(0, ATTR_PREVIEW) : a.value}
                    </span>
                    {cut && <span className="pb-tbnode__note"> {t('tbnode.more', { count: a.value.length - ATTR_PREVIEW })}</span>}
                    {all && a.truncated && (
                      <div className="pb-tbnode__note" data-testid="tb-attr-cut">
                        {t('tbnode.cut')}
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}

const micros = (n: number) => n.toLocaleString('en-US');

function RunStats({ records }: { records: TbRunStats[] }) {
  const t = useT();
  return (
    <div className="pb-block" data-testid="tb-runstats">
      <h4>{t('tbnode.runStats')}</h4>
      {records.map((r, i) => (
        <div key={i} className="pb-tbnode__record" data-testid="tb-runstats-record">
          <strong>{t('tbnode.runStats.record', { tag: r.tag, step: r.step, device: r.device })}</strong>
          <div>{t('tbnode.runStats.time', { op: micros(r.opMicros), all: micros(r.allMicros) })}</div>
          {r.memory.map((m, j) => (
            <div key={`m${j}`} data-testid="tb-runstats-memory">
              {t('tbnode.runStats.memory', { allocator: m.allocator, total: formatBytes(m.totalBytes), peak: formatBytes(m.peakBytes), live: formatBytes(m.liveBytes) })}
            </div>
          ))}
          {r.outputs.map((o, j) => (
            <div key={`o${j}`}>{t('tbnode.runStats.output', { slot: o.slot, dtype: o.dtype, shape: o.shape ? `[${o.shape.join(', ')}]` : '' })}</div>
          ))}
          {r.timelineLabel && <code className="pb-tbnode__note">{r.timelineLabel}</code>}
        </div>
      ))}
    </div>
  );
}

export function TbNodeDetails({ info, io }: { info: TbNodeInfo; io: ReactNode }) {
  const t = useT();
  const isOp = info.kind === 'op';
  return (
    <div className="pb-tbnode" data-testid="tb-node">
      {isOp ? (
        <dl className="pb-tbnode__facts">
          <Fact label={t('tbnode.op')} value={<code>{info.op ?? ''}</code>} testId="tb-op" />
          {info.domain && <Fact label={t('tbnode.domain')} value={info.domain} testId="tb-domain" />}
          <Fact label={t('tbnode.device')} value={info.device || t('info.empty')} testId="tb-device" />
          {info.role && <Fact label={t('tbnode.role')} value={t(`tbnode.role.${info.role}` as MessageKey)} testId="tb-role" />}
          {info.calls.length > 0 && <Fact label={t('tbnode.calls')} value={info.calls.join(', ')} testId="tb-calls" />}
        </dl>
      ) : (
        <p className="pb-tbnode__group" data-testid="tb-group">
          {t('tbnode.group', { label: info.label, count: info.opCount })}
        </p>
      )}
      {isOp && <Attributes attrs={info.attrs} />}
      {isOp && (
        <div className="pb-block">
          <h4>{t('tbnode.io')}</h4>
          {io}
        </div>
      )}
      {info.runStats && info.runStats.length > 0 && <RunStats records={info.runStats} />}
    </div>
  );
}
