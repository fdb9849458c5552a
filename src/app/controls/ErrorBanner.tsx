import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';

/** The one place errors surface (bad file, unreachable server, missing node); text comes from the server. */
export function ErrorBanner() {
  const t = useT();
  const error = useAppStore((s) => s.error);
  const setError = useAppStore((s) => s.setError);
  if (!error) return null;
  return (
    <div className="pb-error" role="alert" data-testid="error-banner">
      <span className="pb-error__text">{error}</span>
      <button type="button" className="pb-error__close" onClick={() => setError(null)} aria-label={t('error.dismiss')}>
        ×
      </button>
    </div>
  );
}
