import { useEffect, useState } from 'react';
import type { OverlayConfigsResponse } from '../../core/api/overlay.js';
import type { Side } from '../../core/api/types.js';
import { visConfigName } from '../../core/match/index.js';
import { overlayApi } from '../api/overlay.js';
import { canRedo, canUndo } from '../commands/matchOps.js';
import { useT } from '../i18n/i18n.js';
import { paneFor, syncStore } from '../pane/paneRegistry.js';
import { currentGraph, describeError, otherSide, revealNode } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';
import { applyConfig, exportConfig, matchPair, redoOverlay, saveMatched, undoOverlay } from '../state/overlayActions.js';
import { useOverlayStore } from '../state/overlayStore.js';
import { MatchList, type ListEntry } from './MatchList.js';
import { OverlayDialog } from './OverlayDialog.js';
import { locateNearestMatched } from './useFindResults.js';
import './match.css';

type Pair = Record<Side, string | null>;
const NO_PAIR: Pair = { npu: null, bench: null };

/**
 * The original viewer's node match (reference-viewer.md §3.5, semantics §4.4), laid out as one sidebar section:
 * unmatched lists per side to pick a pair (a click in a graph picks too), Match with or without children, matched
 * lists to pick a pair to Unmatch, Undo / Redo, and the run directory's `.vis.config` files (apply, export) plus
 * writing a matched file. Everything goes through state/overlayActions.ts; this only renders and dispatches.
 */
export function MatchPanel() {
  const t = useT();
  const meta = useAppStore((s) => s.meta);
  const selection = useAppStore((s) => s.selection);
  const doc = useOverlayStore((s) => s.doc);
  const busy = useOverlayStore((s) => s.busy);
  const version = useOverlayStore((s) => s.version);
  const key = useOverlayStore((s) => s.key);
  const [open, setOpen] = useState(false);
  const [unmatched, setUnmatched] = useState<Pair>(NO_PAIR);
  const [matched, setMatched] = useState<Pair>(NO_PAIR);
  const [children, setChildren] = useState(true);

  useEffect(() => {
    setUnmatched(NO_PAIR);
    setMatched(NO_PAIR);
  }, [key]);
  // What was picked to match is matched now (or said why not): the lists start over.
  useEffect(() => setUnmatched(NO_PAIR), [version]);
  // A click in a graph picks the node: an unmatched one for Match, a matched one (with its counterpart) for Unmatch.
  useEffect(() => {
    if (!selection) return;
    if (selection.counterpartId === null) setUnmatched((p) => ({ ...p, [selection.side]: selection.id }));
    else setMatched({ [selection.side]: selection.id, [otherSide(selection.side)]: selection.counterpartId } as Pair);
  }, [selection]);

  if (!meta) return null;
  if (meta.graphType !== 'compare') {
    return (
      <section className="pb-find" data-testid="match-panel">
        <p className="pb-legend__note" data-testid="match-single">
          {t('match.single')}
        </p>
      </section>
    );
  }

  const pickUnmatched = (side: Side, entry: ListEntry) => {
    setUnmatched((p) => ({ ...p, [side]: entry.id }));
    // Its nearest matched ancestor's counterpart shows where to look on the other side (commands/locate.ts).
    void revealNode(side, entry.id).then((ok) => {
      if (ok) void locateNearestMatched(side, { id: entry.id, path: entry.path, matchedNodeLink: [] });
    });
  };
  const pickMatched = (side: Side, entry: ListEntry) => {
    setMatched({ [side]: entry.id, [otherSide(side)]: entry.counterpart } as Pair);
    void revealNode(side, entry.id).then((ok) => {
      const now = useAppStore.getState().selection;
      // With sync on the panes locate the counterpart themselves; without it, it is located here.
      if (ok && now?.id === entry.id && now.counterpartId !== null && !syncStore.getState().sync) {
        void paneFor(otherSide(side))?.reveal(now.counterpartPath, now.counterpartId, [], 'locate');
      }
    });
  };

  return (
    <details className="pb-find pb-match" data-testid="match-panel" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary className="pb-sidebar__section pb-worst__title" data-testid="match-toggle">
        {t('match.title')}
      </summary>
      <p className="pb-legend__note">{t('match.hint')}</p>
      {meta.task === 'all' && (
        <p className="pb-match__warn" data-testid="match-real-data">
          {t('match.realData')}
        </p>
      )}
      <div className="pb-match__bar">
        <button type="button" data-testid="match-undo" disabled={busy || !canUndo(doc)} title={t('match.undoTip')} onClick={() => void undoOverlay()}>
          {t('match.undo')}
        </button>
        <button type="button" data-testid="match-redo" disabled={busy || !canRedo(doc)} title={t('match.redoTip')} onClick={() => void redoOverlay()}>
          {t('match.redo')}
        </button>
        <span className="pb-found__count" data-testid="match-steps" data-cursor={doc.cursor} data-busy={busy || undefined}>
          {busy ? t('match.busy') : t('match.steps', { count: doc.cursor })}
        </span>
      </div>
      {open && (
        <>
          <h3 className="pb-match__heading">{t('match.unmatchedTitle')}</h3>
          <MatchList side="npu" state="unmatched" chosen={unmatched.npu} onPick={(e) => pickUnmatched('npu', e)} />
          <MatchList side="bench" state="unmatched" chosen={unmatched.bench} onPick={(e) => pickUnmatched('bench', e)} />
          <label className="pb-filter__choice" title={t('match.childrenTip')}>
            <input type="checkbox" data-testid="match-children" checked={children} onChange={(e) => setChildren(e.target.checked)} />
            <span>{t('match.children')}</span>
          </label>
          <PairLine pair={unmatched} />
          <button
            type="button"
            className="pb-match__go"
            data-testid="match-match"
            disabled={busy || !unmatched.npu || !unmatched.bench}
            title={t('match.matchTip')}
            onClick={() => void matchPair('match', unmatched.npu!, unmatched.bench!, children)}
          >
            {t('match.match')}
          </button>

          <h3 className="pb-match__heading">{t('match.matchedTitle')}</h3>
          <MatchList side="npu" state="matched" chosen={matched.npu} onPick={(e) => pickMatched('npu', e)} />
          <MatchList side="bench" state="matched" chosen={matched.bench} onPick={(e) => pickMatched('bench', e)} />
          <PairLine pair={matched} />
          <button
            type="button"
            className="pb-match__go"
            data-testid="match-unmatch"
            disabled={busy || !matched.npu || !matched.bench}
            title={t('match.unmatchTip')}
            onClick={() => void matchPair('unmatch', matched.npu!, matched.bench!, children)}
          >
            {t('match.unmatch')}
          </button>
          <ConfigSection />
        </>
      )}
    </details>
  );
}

function PairLine({ pair }: { pair: Pair }) {
  const t = useT();
  if (!pair.npu && !pair.bench) return <p className="pb-legend__note">{t('match.noneChosen')}</p>;
  return (
    <p className="pb-match__pair" data-testid="match-pair" data-npu={pair.npu ?? ''} data-bench={pair.bench ?? ''}>
      <span title={pair.npu ?? ''}>{t('pane.npu')}: {pair.npu ?? '—'}</span>
      <span title={pair.bench ?? ''}>{t('pane.bench')}: {pair.bench ?? '—'}</span>
    </p>
  );
}

/** Names the server gives the files it writes: the original viewer's config names and a `.matched` copy. */
function fileNames(tag: string, format: string, step: number, rank: number) {
  return {
    config: format === 'db' ? visConfigName(tag, step, rank) : visConfigName(tag),
    copy: `${tag}.matched.${format === 'db' ? 'vis.db' : 'vis'}`,
    self: `${tag}.${format === 'db' ? 'vis.db' : 'vis'}`,
  };
}

function ConfigSection() {
  const t = useT();
  const meta = useAppStore((s) => s.meta)!;
  const step = useAppStore((s) => s.step);
  const rank = useAppStore((s) => s.rank);
  const key = useOverlayStore((s) => s.key);
  const busy = useOverlayStore((s) => s.busy);
  const [configs, setConfigs] = useState<OverlayConfigsResponse | null>(null);
  const [reload, setReload] = useState(0);
  const [confirm, setConfirm] = useState<'copy' | 'overwrite' | 'replace' | null>(null);

  useEffect(() => {
    const ref = currentGraph();
    if (!ref) return;
    const controller = new AbortController();
    setConfigs(null);
    overlayApi.configs(ref, controller.signal).then(
      (answer) => !controller.signal.aborted && setConfigs(answer),
      (err: unknown) => {
        if (controller.signal.aborted || (err as Error)?.name === 'AbortError') return;
        useAppStore.getState().setError(describeError(err));
      },
    );
    return () => controller.abort();
  }, [key, reload]);

  const names = fileNames(meta.tag, meta.format, step ?? meta.steps[0] ?? 0, rank ?? meta.ranks[0] ?? 0);
  const writable = configs?.writable === true;
  const reason = configs && !writable ? t('match.readOnly') : null;
  return (
    <>
      <h3 className="pb-match__heading">{t('match.configTitle')}</h3>
      <label className="pb-match__config" title={t('match.configTip')}>
        <span>{t('match.configPick')}</span>
        <select
          data-testid="match-config"
          value=""
          disabled={!configs || busy}
          onChange={(e) => {
            if (e.target.value) void applyConfig(e.target.value);
          }}
        >
          <option value="">{configs ? t('match.configNone') : t('match.configBusy')}</option>
          {configs?.files.map((file) => (
            <option key={file} value={file}>
              {file}
            </option>
          ))}
        </select>
      </label>
      <div className="pb-match__bar">
        <button
          type="button"
          data-testid="match-export"
          disabled={!writable || busy}
          title={reason ?? t('match.exportTip', { file: names.config })}
          onClick={() => void exportConfig().then(() => setReload((n) => n + 1))}
        >
          {t('match.export')}
        </button>
        <button type="button" data-testid="match-save-copy" disabled={!writable || busy} title={reason ?? t('match.saveCopyTip', { file: names.copy })} onClick={() => setConfirm('copy')}>
          {t('match.saveCopy')}
        </button>
        <button type="button" data-testid="match-overwrite" disabled={!writable || busy} title={reason ?? t('match.overwriteTip')} onClick={() => setConfirm('overwrite')}>
          {t('match.overwrite')}
        </button>
      </div>
      {reason && (
        <p className="pb-legend__note" data-testid="match-read-only">
          {reason}
        </p>
      )}
      {confirm && (
        <OverlayDialog
          title={t(confirm === 'overwrite' ? 'match.overwrite' : 'match.saveCopy')}
          testId="match-confirm"
          onClose={() => setConfirm(null)}
          actions={
            <>
              <button type="button" onClick={() => setConfirm(null)}>
                {t('dialog.cancel')}
              </button>
              <button
                type="button"
                className="pb-dialog__primary"
                data-testid="match-confirm-write"
                onClick={() => {
                  const asked = confirm;
                  setConfirm(null);
                  // A copy already there (another user's, or an earlier save) is replaced only when asked again.
                  void saveMatched(asked === 'overwrite' ? 'overwrite' : 'copy', asked === 'replace').then((answer) => answer === 'exists' && setConfirm('replace'));
                }}
              >
                {t(confirm === 'replace' ? 'match.replace' : 'match.confirm')}
              </button>
            </>
          }
        >
          <p data-testid="match-confirm-text">
            {confirm === 'copy'
              ? t('match.confirmCopy', { file: names.copy })
              : confirm === 'replace'
                ? t('match.confirmReplace', { file: names.copy })
                : t('match.confirmOverwrite', { file: names.self })}
          </p>
        </OverlayDialog>
      )}
    </>
  );
}
