import { useStore } from 'zustand';
import { THEME_CHOICES, type ThemeChoice } from '../commands/theme.js';
import { useT, type MessageKey } from '../i18n/i18n.js';
import { setThemeChoice, themeStore } from '../state/themeStore.js';

const LABELS: Record<ThemeChoice, MessageKey> = { auto: 'theme.auto', light: 'theme.light', dark: 'theme.dark' };
const GLYPHS: Record<ThemeChoice, string> = { auto: '◐', light: '☀', dark: '☾' };

/** Auto / light / dark, beside the language switch; the choice is kept in localStorage. */
export function ThemeSwitch() {
  const t = useT();
  const choice = useStore(themeStore, (s) => s.choice);
  return (
    <div className="pb-lang pb-theme" role="group" aria-label={t('theme.label')} data-testid="theme-switch">
      {THEME_CHOICES.map((c) => (
        <button
          key={c}
          type="button"
          className="pb-lang__choice"
          aria-pressed={choice === c}
          aria-label={t(LABELS[c])}
          title={c === 'auto' ? t('theme.autoTip') : t(LABELS[c])}
          data-testid={`theme-${c}`}
          onClick={() => setThemeChoice(c)}
        >
          {GLYPHS[c]}
        </button>
      ))}
    </div>
  );
}
