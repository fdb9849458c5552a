import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { bootApp } from './state/boot.js';
import { initTheme } from './state/themeStore.js';
import './styles/theme.css';
import './styles/layout.css';
import './styles/controls.css';
import './styles/panels.css';
import './styles/extras.css';

initTheme();
bootApp();
// The views (d3, the panes, the panels) are a second chunk, evaluated in a task of their own: one bundle took
// ~45 ms to evaluate on the 2-core machine, at the 50 ms long-task line (issue 4). Fetching the runs and the
// opened file's meta (bootApp) overlaps with loading it.
void import('./App.js').then(({ App }) => {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
