import { useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { opensShortcuts, SHORTCUTS, type Shortcut } from '../commands/shortcuts.js';
import { useT } from '../i18n/i18n.js';

const SCOPES: ReadonlyArray<Shortcut['scope']> = ['graph', 'search', 'page'];

/** Whether the overlay is open: shared by the sidebar's "?" button and the overlay mounted by the shell. */
const overlayStore = createStore<{ open: boolean }>()(() => ({ open: false }));
const setOpen = (next: boolean | ((open: boolean) => boolean)) =>
  overlayStore.setState((s) => ({ open: typeof next === 'function' ? next(s.open) : next }));

/** The toolbar "?" button (sidebar header). */
export function ShortcutsButton() {
  const t = useT();
  const open = useStore(overlayStore, (s) => s.open);
  return (
    <button
      type="button"
      className="pb-help"
      data-testid="shortcuts-button"
      aria-haspopup="dialog"
      aria-expanded={open}
      title={t('shortcuts.open')}
      aria-label={t('shortcuts.open')}
      onClick={() => setOpen((v) => !v)}
    >
      ?
    </button>
  );
}

/**
 * The `?` overlay: every binding of commands/shortcuts.ts, grouped by where it applies. `?` toggles it (not while
 * typing), Esc or a click outside closes it, and focus returns to where it was. Mounted by the shell, so `?` works
 * with the sidebar collapsed too.
 */
export function ShortcutsOverlay() {
  const t = useT();
  const open = useStore(overlayStore, (s) => s.open);
  const closeRef = useRef<HTMLButtonElement | null>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target instanceof HTMLElement ? e.target : null;
      const press = { key: e.key, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, targetTag: target?.tagName ?? '', targetEditable: target?.isContentEditable ?? false };
      if (opensShortcuts(press)) {
        e.preventDefault();
        setOpen((v) => !v);
      } else if (e.key === 'Escape') setOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    if (!open) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closeRef.current?.focus();
    return () => before?.focus();
  }, [open]);

  if (!open) return null;
  return (
    <div className="pb-shortcuts__backdrop" data-testid="shortcuts-backdrop" onClick={(e) => e.target === e.currentTarget && setOpen(false)}>
      <div className="pb-shortcuts" role="dialog" aria-modal="true" aria-labelledby="pb-shortcuts-title" data-testid="shortcuts-overlay">
        <header className="pb-shortcuts__header">
          <h2 id="pb-shortcuts-title">{t('shortcuts.title')}</h2>
          <button type="button" ref={closeRef} data-testid="shortcuts-close" title={t('shortcuts.close')} aria-label={t('shortcuts.close')} onClick={() => setOpen(false)}>
            ×
          </button>
        </header>
        <table className="pb-shortcuts__table">
          <thead>
            <tr>
              <th scope="col">{t('shortcuts.colKeys')}</th>
              <th scope="col">{t('shortcuts.colAction')}</th>
            </tr>
          </thead>
          {SCOPES.map((scope) => (
            <tbody key={scope}>
              <tr>
                <th colSpan={2} scope="colgroup" className="pb-shortcuts__scope">
                  {t(`shortcuts.scope.${scope}`)}
                </th>
              </tr>
              {SHORTCUTS.filter((s) => s.scope === scope).map((s) => (
                <tr key={s.id} data-testid="shortcut-row" data-shortcut={s.id}>
                  <td>
                    <kbd>{t(s.keys)}</kbd>
                  </td>
                  <td>{t(s.action)}</td>
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </div>
    </div>
  );
}
