import { createStore } from 'zustand/vanilla';
import { parseThemeChoice, resolveTheme, THEME_STORAGE_KEY, type Theme, type ThemeChoice } from '../commands/theme.js';

/**
 * The theme choice and the theme in effect. `initTheme` runs once at boot (before the views load, so the page is not
 * painted light first) and sets `<html data-theme>`, which theme.css keys its dark variables on.
 */
export const themeStore = createStore<{ choice: ThemeChoice; theme: Theme }>()(() => ({ choice: 'auto', theme: 'light' }));

const DARK_QUERY = '(prefers-color-scheme: dark)';

function systemDark(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(DARK_QUERY).matches;
}

function apply(choice: ThemeChoice): void {
  const theme = resolveTheme(choice, systemDark());
  document.documentElement.dataset.theme = theme;
  document.documentElement.dataset.themeChoice = choice;
  themeStore.setState({ choice, theme });
}

function stored(): string | null {
  try {
    return window.localStorage.getItem(THEME_STORAGE_KEY);
  } catch {
    return null; // storage disabled (privacy mode): the choice lasts for the page only
  }
}

export function setThemeChoice(choice: ThemeChoice): void {
  try {
    window.localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // as above
  }
  apply(choice);
}

export function initTheme(): void {
  apply(parseThemeChoice(stored()));
  // "Auto" follows the system live, e.g. when the OS switches to dark at sunset.
  window.matchMedia?.(DARK_QUERY).addEventListener?.('change', () => apply(themeStore.getState().choice));
}
