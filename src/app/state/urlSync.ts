import type { Side } from '../../core/api/types.js';
import { firstFileOfRun, firstOpenableFile, loadRuns, openFile, revealNode, showMissingRun } from './actions.js';
import { setDataflow } from './dataflowActions.js';
import { translate } from '../i18n/i18n.js';
import { useAppStore, type AppState } from './appStore.js';
import { fileExtension } from './fileChoice.js';
import { adoptLinkOverlay, overlayLinkText } from './overlayActions.js';
import { useOverlayStore } from './overlayStore.js';
import { emptyHashState, formatHash, parseHash, type HashState } from './url.js';
import type { PaneLink } from './viewLink.js';
import { onPaneChange, paneLink, planView } from './viewPlan.js';

/**
 * Keeps `location.hash` equal to the view and restores a view from a hash (fresh page, edited address, back/forward).
 * While a hash is being applied the intermediate states are not written back, so the link being restored is not
 * overwritten by a half-restored view; the panes' part (open groups, viewport) counts as shown until each pane has
 * restored it (viewPlan.ts).
 */
const livePanes = (): Record<Side, PaneLink> => ({ npu: paneLink('npu'), bench: paneLink('bench') });

export function hashFromState(
  s: Pick<AppState, 'run' | 'tag' | 'format' | 'step' | 'rank' | 'micro' | 'selection' | 'lang'> & Partial<Pick<AppState, 'dataflow'>>,
  panes: Record<Side, PaneLink> = livePanes(),
): HashState {
  const overlay = s.tag === null ? null : overlayLinkText();
  return {
    page: 'graphs',
    run: s.run,
    tag: s.tag,
    format: s.tag === null ? null : s.format,
    step: s.step,
    rank: s.rank,
    micro: s.micro,
    side: s.selection?.side ?? 'npu',
    node: s.selection?.id ?? null,
    pos: s.selection?.positions ?? [],
    panes: s.tag === null ? emptyHashState.panes : panes,
    lang: s.lang,
    ...(overlay !== null ? { overlay } : {}),
    ...(s.dataflow ? { dataflow: true } : {}),
  };
}

let restoring = 0;
/** The address as this module last wrote or applied it; another one is a navigation whose hashchange is still queued. */
let acknowledged: string | null = null;

/** Pans and zooms change the view many times a second; the address follows once they pause. */
const PANE_WRITE_DELAY_MS = 250;
let paneWrite: number | undefined;

function schedulePaneWrite(): void {
  window.clearTimeout(paneWrite);
  paneWrite = window.setTimeout(() => writeHash(false), PANE_WRITE_DELAY_MS);
}

const panesText = (panes: Record<Side, PaneLink>) => formatHash({ ...emptyHashState, panes });

function writeHash(push: boolean): void {
  if (restoring > 0) return;
  // A delayed pane write must not replace an address the user just typed before its hashchange applies it.
  if (acknowledged !== null && window.location.hash !== acknowledged) return;
  const hash = formatHash(hashFromState(useAppStore.getState()));
  if (window.location.hash !== hash) {
    // A new file is a new history entry (Back returns to the previous file); selection and micro step replace it.
    if (push) window.history.pushState(null, '', hash);
    else window.history.replaceState(null, '', hash);
  }
  // Read back: the browser may percent-encode what was written.
  acknowledged = window.location.hash;
}

export async function applyHash(target: HashState): Promise<void> {
  restoring++;
  try {
    const s = useAppStore.getState();
    if (target.lang && target.lang !== s.lang) s.setLang(target.lang);
    // Before any children request of the link's file: they carry the flag (the panes of a file shown now reload).
    if ((target.dataflow ?? false) !== s.dataflow) setDataflow(target.dataflow ?? false);
    if (!target.run) return;
    let firstOfRun: string | null = null;
    if (!target.tag) {
      // `run=` alone: that run's first file, never another run's; a run not listed is said, not replaced.
      const known = s.runs.some((r) => r.run === target.run);
      const first = firstFileOfRun(target.run);
      if (!first) {
        showMissingRun(target.run, known ? 'runEmpty' : 'unknownRun');
        return;
      }
      target = { ...target, tag: first.tag, format: first.format };
      firstOfRun = first.format === 'vis' || first.format === 'db' ? `${first.tag}.${fileExtension(first.format)}` : first.tag;
    } else if (!s.runs.some((r) => r.run === target.run)) {
      showMissingRun(target.run, 'unknownRun');
      return;
    }
    const tag = target.tag!;
    // Before the graph opens, so its first requests are already answered under the link's overlay (issue 15).
    await adoptLinkOverlay({ run: target.run!, tag, format: target.format, step: target.step, rank: target.rank }, target.overlay);
    let reopened = false;
    if (
      target.run !== s.run ||
      tag !== s.tag ||
      target.format !== s.format ||
      target.step !== s.step ||
      target.rank !== s.rank ||
      !s.meta
    ) {
      const opts = { micro: target.micro, step: target.step, rank: target.rank, format: target.format };
      if (!(await openFile(target.run!, tag, opts))) return;
      reopened = true;
    } else if (target.micro !== s.micro) {
      s.setMicro(target.micro);
      reopened = true; // the panes reset their trees for another micro step
    }
    const now = useAppStore.getState();
    // Said, not silent: the link named no file (issue 14 item 9).
    if (firstOfRun !== null) now.setNotice(translate(now.lang, 'note.firstFile', { run: target.run!, file: firstOfRun }));
    if (target.node === null) {
      if (now.selection) now.select(null);
    } else if (now.selection?.id !== target.node || now.selection.side !== target.side) {
      const version = now.fileVersion;
      // A node the file lacks leaves nothing selected, as on a fresh page (the banner says why).
      if (!(await revealNode(target.side, target.node, target.pos)) && useAppStore.getState().fileVersion === version) now.select(null);
    }
    // Planned after the selection, so each pane applies the link's viewport after the selection's locate. On the
    // file already shown the plan is exact: groups the link does not list close (issue 14 item 9).
    const carried = panesText(target.panes);
    if (reopened) {
      if (carried !== panesText(emptyHashState.panes)) planView(target.panes);
    } else if (carried !== panesText(livePanes())) {
      planView(target.panes, true);
    }
  } finally {
    restoring--;
    writeHash(false);
  }
}

/** Lists the files, restores the page's hash (or opens the first file) and starts two-way syncing. */
export async function startUrlSync(): Promise<void> {
  onPaneChange(schedulePaneWrite);
  useOverlayStore.subscribe((state, prev) => {
    if (state.doc !== prev.doc) writeHash(false);
  });
  useAppStore.subscribe((state, prev) => {
    if (
      state.run === prev.run &&
      state.tag === prev.tag &&
      state.format === prev.format &&
      state.step === prev.step &&
      state.rank === prev.rank &&
      state.micro === prev.micro &&
      state.selection === prev.selection &&
      state.lang === prev.lang &&
      state.dataflow === prev.dataflow
    )
      return;
    writeHash(
      state.run !== prev.run ||
        state.tag !== prev.tag ||
        state.format !== prev.format ||
        state.step !== prev.step ||
        state.rank !== prev.rank,
    );
  });
  window.addEventListener('hashchange', () => {
    acknowledged = window.location.hash;
    const target = parseHash(window.location.hash);
    if (formatHash(target) !== formatHash(hashFromState(useAppStore.getState()))) void applyHash(target);
  });

  acknowledged = window.location.hash;
  const initial = parseHash(window.location.hash);
  restoring++;
  try {
    await loadRuns();
  } finally {
    restoring--;
  }
  // The page's own link always wins: nothing remembered (storage, another tab) replaces the run it names.
  if (initial.run) {
    await applyHash(initial);
    return;
  }
  const first = firstOpenableFile();
  if (first) await applyHash({ ...initial, ...first });
  else writeHash(false);
}
