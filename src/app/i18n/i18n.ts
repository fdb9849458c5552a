import { useCallback } from 'react';
import { useAppStore, type Lang } from '../state/appStore.js';
import { en, type MessageKey } from './en.js';
import { zhCN } from './zhCN.js';

export type { MessageKey };
export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

const catalogs: Record<Lang, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };

/** Pure lookup, usable outside React (error messages built in state actions). */
export function translate(lang: Lang, key: MessageKey, vars?: Record<string, string | number>): string {
  const text = catalogs[lang][key] ?? en[key];
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/** `const t = useT(); t('info.copy')` — re-renders the caller when the language changes. */
export function useT(): Translate {
  const lang = useAppStore((s) => s.lang);
  return useCallback<Translate>((key, vars) => translate(lang, key, vars), [lang]);
}
