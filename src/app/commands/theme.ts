/**
 * Light / dark theme: the user's choice (auto follows `prefers-color-scheme`), stored in localStorage. Imports
 * nothing, so the boot chunk can apply the theme before the views load (pane/darkFills.ts themes the node fills).
 */
export type ThemeChoice = 'auto' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

export const THEME_CHOICES: readonly ThemeChoice[] = ['auto', 'light', 'dark'];
export const THEME_STORAGE_KEY = 'probeboard.theme';

export function parseThemeChoice(stored: string | null | undefined): ThemeChoice {
  return THEME_CHOICES.includes(stored as ThemeChoice) ? (stored as ThemeChoice) : 'auto';
}

export function resolveTheme(choice: ThemeChoice, systemPrefersDark: boolean): Theme {
  if (choice === 'auto') return systemPrefersDark ? 'dark' : 'light';
  return choice;
}
