import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { bootApp } from './state/boot.js';
import './styles/theme.css';
import './styles/layout.css';
import './styles/controls.css';
import './styles/panels.css';

bootApp();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
