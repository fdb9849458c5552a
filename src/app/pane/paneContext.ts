import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { PaneController } from './paneController.js';
import type { PaneState } from './paneStore.js';

export const PaneContext = createContext<PaneController | null>(null);

export function usePaneController(): PaneController {
  const controller = useContext(PaneContext);
  if (!controller) throw new Error('usePaneController outside a GraphPane');
  return controller;
}

/** Selector hook on the surrounding pane's own store. */
export function usePane<T>(selector: (state: PaneState) => T): T {
  return useStore(usePaneController().store, selector);
}
