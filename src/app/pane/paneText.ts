import { useAppStore, type Lang } from '../state/appStore.js';

/**
 * The pane's few strings. Kept beside the pane until the shell's catalogs (src/app/i18n) carry `pane.fit` etc.;
 * then this file becomes a re-export of `useT`.
 */
const text = {
  en: {
    fit: 'Fit',
    fitTip: "Fit the graph's width at a readable zoom, from the top; press again to fit the whole graph",
    loading: 'Loading…',
    keysTip: 'W/S zoom, A/D pan, wheel scrolls, Ctrl+wheel zooms, drag pans, double-click expands or collapses',
  },
  'zh-CN': {
    fit: '自适应',
    fitTip: '以可读的缩放比例适配图的宽度并从顶部显示；再按一次则将整个图缩放到窗格大小',
    loading: '加载中……',
    keysTip: 'W/S 缩放，A/D 平移，滚轮滚动，Ctrl+滚轮缩放，拖动平移，双击展开或收起',
  },
} satisfies Record<Lang, Record<string, string>>;

export type PaneTextKey = keyof (typeof text)['en'];

export function usePaneText(): (key: PaneTextKey) => string {
  const lang = useAppStore((s) => s.lang);
  return (key) => (text[lang] ?? text.en)[key];
}
