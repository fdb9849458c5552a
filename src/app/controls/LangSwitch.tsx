import { useT } from '../i18n/i18n.js';
import { useAppStore, type Lang } from '../state/appStore.js';

const choices: Array<{ lang: Lang; label: string; testId: string }> = [
  { lang: 'zh-CN', label: '中', testId: 'lang-zh' },
  { lang: 'en', label: 'en', testId: 'lang-en' },
];

export function LangSwitch() {
  const t = useT();
  const lang = useAppStore((s) => s.lang);
  const setLang = useAppStore((s) => s.setLang);
  return (
    <div className="pb-lang" role="group" aria-label={t('lang.label')} data-testid="lang-switch">
      {choices.map((c) => (
        <button
          key={c.lang}
          type="button"
          className="pb-lang__choice"
          aria-pressed={lang === c.lang}
          data-testid={c.testId}
          onClick={() => setLang(c.lang)}
        >
          {c.label}
        </button>
      ))}
    </div>
  );
}
