import { setIndexingListener, setRequestLanguage } from '../api/client.js';
import { loadRuns, startDetailLoader } from './actions.js';
import { startOverlay } from './overlayActions.js';
import { useAppStore, type Lang } from './appStore.js';
import { parseHash } from './url.js';
import { startUrlSync } from './urlSync.js';

const LANG_KEY = 'probeboard.lang';

function storedLang(): Lang | null {
  try {
    const value = window.localStorage.getItem(LANG_KEY);
    return value === 'en' || value === 'zh-CN' ? value : null;
  } catch {
    return null; // storage disabled (private mode, file://): the URL still carries the choice
  }
}

function applyLang(lang: Lang): void {
  setRequestLanguage(lang);
  document.documentElement.lang = lang;
  try {
    window.localStorage.setItem(LANG_KEY, lang);
  } catch {
    /* see storedLang */
  }
}

/** How often the run list is asked for again while the page is visible (files added to the log dir appear). */
export const RUNS_POLL_MS = 5000;

/**
 * Reloads the run list every RUNS_POLL_MS while the tab is visible, and at once when it becomes visible again.
 * The open file and selection stay as they are (loadRuns replaces only the list, and only when it changed).
 */
export function startRunsPolling(intervalMs = RUNS_POLL_MS): () => void {
  let busy = false;
  const poll = () => {
    if (busy || document.visibilityState !== 'visible' || !useAppStore.getState().runsLoaded) return;
    busy = true;
    void loadRuns({ poll: true }).finally(() => {
      busy = false;
    });
  };
  const timer = window.setInterval(poll, intervalMs);
  document.addEventListener('visibilitychange', poll);
  return () => {
    window.clearInterval(timer);
    document.removeEventListener('visibilitychange', poll);
  };
}

/** Wires the page once: language (URL beats localStorage beats the browser's), detail loading, URL sync. */
export function bootApp(): void {
  const fromBrowser: Lang = navigator.language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
  const lang = parseHash(window.location.hash).lang ?? storedLang() ?? fromBrowser;
  useAppStore.getState().setLang(lang);
  applyLang(lang);
  useAppStore.subscribe((s, prev) => {
    if (s.lang === prev.lang) return;
    applyLang(s.lang);
    // The listing's per-file errors are translated by the server.
    if (s.runsLoaded) void loadRuns();
  });
  setIndexingListener((indexing) => useAppStore.setState({ indexing }));
  startDetailLoader();
  // Before the first graph request: they carry the open graph's comparison overlay (issue 15).
  startOverlay();
  void startUrlSync();
  startRunsPolling();
}
