import { firstFileOfRun, firstOpenableFile, loadRuns, openFile, revealNode, showMissingRun } from './actions.js';
import { useAppStore, type AppState } from './appStore.js';
import { formatHash, parseHash, type HashState } from './url.js';

/**
 * Keeps `location.hash` equal to the view and restores a view from a hash (fresh page, edited address, back/forward).
 * While a hash is being applied the intermediate states are not written back, so the link being restored is not
 * overwritten by a half-restored view.
 */
export function hashFromState(
  s: Pick<AppState, 'run' | 'tag' | 'format' | 'step' | 'rank' | 'micro' | 'selection' | 'lang'>,
): HashState {
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
    lang: s.lang,
  };
}

let restoring = 0;

function writeHash(push: boolean): void {
  if (restoring > 0) return;
  const hash = formatHash(hashFromState(useAppStore.getState()));
  if (window.location.hash === hash) return;
  // A new file is a new history entry (Back returns to the previous file); selection and micro step replace it.
  if (push) window.history.pushState(null, '', hash);
  else window.history.replaceState(null, '', hash);
}

export async function applyHash(target: HashState): Promise<void> {
  restoring++;
  try {
    const s = useAppStore.getState();
    if (target.lang && target.lang !== s.lang) s.setLang(target.lang);
    if (!target.run) return;
    if (!target.tag) {
      // `run=` alone: that run's first file, never another run's; a run not listed is said, not replaced.
      const known = s.runs.some((r) => r.run === target.run);
      const first = firstFileOfRun(target.run);
      if (!first) {
        showMissingRun(target.run, known ? 'runEmpty' : 'unknownRun');
        return;
      }
      target = { ...target, tag: first.tag, format: first.format };
    } else if (!s.runs.some((r) => r.run === target.run)) {
      showMissingRun(target.run, 'unknownRun');
      return;
    }
    const tag = target.tag!;
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
    } else if (target.micro !== s.micro) {
      s.setMicro(target.micro);
    }
    const now = useAppStore.getState();
    if (target.node === null) {
      if (now.selection) now.select(null);
    } else if (now.selection?.id !== target.node || now.selection.side !== target.side) {
      await revealNode(target.side, target.node, target.pos);
    }
  } finally {
    restoring--;
    writeHash(false);
  }
}

/** Lists the files, restores the page's hash (or opens the first file) and starts two-way syncing. */
export async function startUrlSync(): Promise<void> {
  useAppStore.subscribe((state, prev) => {
    if (
      state.run === prev.run &&
      state.tag === prev.tag &&
      state.format === prev.format &&
      state.step === prev.step &&
      state.rank === prev.rank &&
      state.micro === prev.micro &&
      state.selection === prev.selection &&
      state.lang === prev.lang
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
    const target = parseHash(window.location.hash);
    if (formatHash(target) !== formatHash(hashFromState(useAppStore.getState()))) void applyHash(target);
  });

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
