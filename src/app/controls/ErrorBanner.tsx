import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';

/**
 * The one place errors surface (bad file, unreachable server, missing node); text comes from the server. A notice
 * (what was opened instead of what a link asked for) shows below it, in neutral colours.
 */
export function ErrorBanner() {
  const t = useT();
  const error = useAppStore((s) => s.error);
  const setError = useAppStore((s) => s.setError);
  const notice = useAppStore((s) => s.notice);
  const setNotice = useAppStore((s) => s.setNotice);
  return (
    <>
      {error && (
        <div className="pb-error" role="alert" data-testid="error-banner">
          <span className="pb-error__text">{error}</span>
          <button type="button" className="pb-error__close" onClick={() => setError(null)} aria-label={t('error.dismiss')}>
            ×
          </button>
        </div>
      )}
      {notice && (
        <div className="pb-error pb-error--note" role="status" data-testid="notice-banner">
          <span className="pb-error__text">{notice}</span>
          <button type="button" className="pb-error__close" onClick={() => setNotice(null)} aria-label={t('error.dismiss')}>
            ×
          </button>
        </div>
      )}
    </>
  );
}
