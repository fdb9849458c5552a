import { useEffect, useState } from 'react';
import { fetchDivergent } from '../api/divergent.js';
import { summarizeDivergent, type DivergentSummary } from '../commands/firstDivergent.js';
import { useT } from '../i18n/i18n.js';
import { currentGraph, describeError, selectFound } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';

/**
 * Issue 14's "First divergent" button (in the worst-nodes panel): asks `/api/graph/divergent` and locates the answer
 * on both sides as a worst-table row does (selectFound); the rule is the button's tooltip, the walk's account the
 * status line's.
 */
export function FirstDivergentButton() {
  const t = useT();
  const fileKey = useAppStore((s) => `${s.fileVersion}|${s.run}|${s.tag}|${s.step}|${s.rank}`);
  const [busy, setBusy] = useState(false);
  const [summary, setSummary] = useState<DivergentSummary | null>(null);

  useEffect(() => setSummary(null), [fileKey]);

  const find = () => {
    const ref = currentGraph();
    if (!ref || busy) return;
    setBusy(true);
    fetchDivergent(ref).then(
      (answer) => {
        setBusy(false);
        const next = summarizeDivergent(answer);
        setSummary(next);
        if (next.target) selectFound('npu', next.target);
      },
      (err: unknown) => {
        setBusy(false);
        useAppStore.getState().setError(describeError(err));
      },
    );
  };

  return (
    <div className="pb-worst__divergent">
      <button type="button" data-testid="first-divergent" title={t('divergent.rule')} disabled={busy} onClick={find}>
        {t('divergent.button')}
      </button>
      {busy && <span className="pb-found__count">{t('divergent.busy')}</span>}
      {!busy && summary && (
        <span
          className="pb-found__count"
          data-testid="first-divergent-status"
          data-node={summary.target?.id ?? ''}
          title={summary.detail ? t(summary.detail.key, summary.detail.vars) : undefined}
        >
          {t(summary.line.key, summary.line.vars)}
        </span>
      )}
    </div>
  );
}
