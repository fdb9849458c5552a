import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { ColorLegend } from './ColorLegend.js';
import { FilePicker } from './FilePicker.js';
import { FilterPanel } from './FilterPanel.js';
import { HeatmapPanel } from './HeatmapPanel.js';
import { SearchPanel } from './SearchPanel.js';
import { LangSwitch } from './LangSwitch.js';
import { MatchPanel } from './MatchPanel.js';
import { OverlayToast } from './OverlayToast.js';
import { ShortcutsButton } from './ShortcutsOverlay.js';
import { ThemeSwitch } from './ThemeSwitch.js';
import { WorstNodesPanel } from './WorstNodesPanel.js';

export function Sidebar() {
  const t = useT();
  const open = useAppStore((s) => s.sidebarOpen);
  const setOpen = useAppStore((s) => s.setSidebarOpen);
  const hasMeta = useAppStore((s) => s.meta !== null);
  const compare = useAppStore((s) => s.meta?.graphType === 'compare');
  return (
    <aside className="pb-sidebar" data-open={open} data-testid="sidebar">
      {open && (
        <div className="pb-sidebar__body">
          <header className="pb-sidebar__header">
            <h1 className="pb-sidebar__title">{t('app.title')}</h1>
            <div className="pb-sidebar__tools">
              <ThemeSwitch />
              <LangSwitch />
              <ShortcutsButton />
            </div>
          </header>
          <h2 className="pb-sidebar__section">{t('sidebar.data')}</h2>
          <FilePicker />
          {hasMeta && <h2 className="pb-sidebar__section">{t('sidebar.precision')}</h2>}
          <ColorLegend />
          {hasMeta && <h2 className="pb-sidebar__section">{t('sidebar.search')}</h2>}
          <SearchPanel />
          {compare && <h2 className="pb-sidebar__section">{t('sidebar.filter')}</h2>}
          <FilterPanel />
          <MatchPanel />
          <WorstNodesPanel />
          <HeatmapPanel />
        </div>
      )}
      <OverlayToast />
      <button
        type="button"
        className="pb-sidebar__toggle"
        data-testid="sidebar-toggle"
        aria-expanded={open}
        title={t('sidebar.toggle')}
        aria-label={t('sidebar.toggle')}
        onClick={() => setOpen(!open)}
      >
        {open ? '‹' : '›'}
      </button>
    </aside>
  );
}
