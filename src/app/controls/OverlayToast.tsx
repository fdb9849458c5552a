import { useEffect } from 'react';
import { useT } from '../i18n/i18n.js';
import { useOverlayStore } from '../state/overlayStore.js';

/** Long enough to read a count, or a few failure reasons; an error stays until closed. */
const TOAST_MS = { ok: 4000, warn: 12000 } as const;

/**
 * What a match, unmatch, config, undo or write did (reference-viewer.md §3.1 "Toasts"), in the bottom right corner,
 * clear of the nodes just matched. Announced to screen readers; an error stays until closed.
 */
export function OverlayToast() {
  const t = useT();
  const toast = useOverlayStore((s) => s.toast);
  const hide = useOverlayStore((s) => s.hideToast);
  useEffect(() => {
    if (!toast || toast.tone === 'error') return;
    const timer = window.setTimeout(() => {
      if (useOverlayStore.getState().toast?.seq === toast.seq) hide();
    }, TOAST_MS[toast.tone]);
    return () => window.clearTimeout(timer);
  }, [toast, hide]);
  if (!toast) return null;
  return (
    <div className="pb-toast" data-testid="match-toast" data-tone={toast.tone} role={toast.tone === 'error' ? 'alert' : 'status'}>
      <ul className="pb-toast__lines">
        {toast.lines.map((line, i) => (
          <li key={i} data-key={line.key}>
            {t(line.key, line.vars)}
          </li>
        ))}
      </ul>
      <button type="button" className="pb-toast__close" data-testid="match-toast-close" title={t('match.toast.close')} aria-label={t('match.toast.close')} onClick={hide}>
        ×
      </button>
    </div>
  );
}
