import type { NodeDetail } from '../../core/api/types.js';
import { useT } from '../i18n/i18n.js';
import { CopyButton } from './CopyButton.js';

/** msprobe writes suggestions as `{text, <link title>: <url>}` (msprobe-format.md §3.11); only http(s) becomes a link. */
function Suggestions({ value }: { value: Record<string, unknown> }) {
  const t = useT();
  const entries = Object.entries(value);
  if (entries.length === 0) return <p className="pb-info__empty">{t('info.empty')}</p>;
  return (
    <ul className="pb-suggestions">
      {entries.map(([key, v]) => {
        const text = typeof v === 'string' ? v : JSON.stringify(v);
        const isUrl = typeof v === 'string' && /^https?:\/\//i.test(v);
        return (
          <li key={key}>
            {key !== 'text' && <strong>{key}: </strong>}
            {isUrl ? (
              <a href={text} target="_blank" rel="noopener noreferrer">
                {text}
              </a>
            ) : (
              text
            )}
          </li>
        );
      })}
    </ul>
  );
}

function TextBlock({ title, lines, testId }: { title: string; lines: string[]; testId: string }) {
  const t = useT();
  const text = lines.join('\n');
  return (
    <div className="pb-block">
      <div className="pb-block__head">
        <h4>{title}</h4>
        <CopyButton text={text} testId={`copy-${testId}`} />
      </div>
      {lines.length === 0 ? (
        <p className="pb-info__empty">{t('info.empty')}</p>
      ) : (
        <pre className="pb-block__text" data-testid={testId}>
          {text}
        </pre>
      )}
    </div>
  );
}

function SideInfo({ detail, label, side }: { detail: NodeDetail; label: string; side: string }) {
  const t = useT();
  return (
    <div className="pb-sideinfo" data-side={side}>
      <h3 className="pb-sideinfo__title">{label}</h3>
      <TextBlock title={t('info.stack')} lines={detail.stackInfo} testId={`stack-${side}`} />
      {detail.parallelMergeInfo.length > 0 && (
        <TextBlock title={t('info.parallelMerge')} lines={detail.parallelMergeInfo} testId={`merge-${side}`} />
      )}
      <div className="pb-block">
        <h4>{t('info.suggestions')}</h4>
        <Suggestions value={detail.suggestions} />
      </div>
    </div>
  );
}

/** Tab 2: stack, parallel-merge info and suggestions, one column per side. */
export function NodeInfoTab({ npu, bench, compare }: { npu: NodeDetail | null; bench: NodeDetail | null; compare: boolean }) {
  const t = useT();
  return (
    <div className="pb-nodeinfo" data-testid="node-info">
      {npu && <SideInfo detail={npu} side="npu" label={t(compare ? 'info.npuNode' : 'info.node', { id: npu.id })} />}
      {bench && <SideInfo detail={bench} side="bench" label={t('info.benchNode', { id: bench.id })} />}
    </div>
  );
}
