import { langs, type Lang } from './messages.js';

/**
 * `?lang=` wins (the app sends its UI language), then the first Accept-Language entry we have, then the
 * server's default. Any `zh*` tag maps to zh-CN: it is the only Chinese table.
 */
export function pickLang(queryLang: unknown, acceptLanguage: string | undefined, fallback: Lang): Lang {
  if (typeof queryLang === 'string') {
    const lang = matchLang(queryLang);
    if (lang) return lang;
  }
  if (acceptLanguage) {
    const ranked = acceptLanguage
      .split(',')
      .map((part, index) => {
        const [tag, ...params] = part.trim().split(';');
        const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
        return { tag: tag.trim(), q: q ? Number(q[1]) : 1, index };
      })
      .filter((r) => r.tag && r.q > 0)
      .sort((a, b) => b.q - a.q || a.index - b.index);
    for (const r of ranked) {
      const lang = matchLang(r.tag);
      if (lang) return lang;
    }
  }
  return fallback;
}

export function matchLang(tag: string): Lang | undefined {
  const lower = tag.toLowerCase();
  if (lower.startsWith('zh')) return 'zh-CN';
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  return langs.find((l) => l.toLowerCase() === lower);
}
