import type { MessageKey } from '../i18n/en.js';

/**
 * Every key and pointer binding of the viewer, in one table: the shortcuts overlay renders exactly this list. The
 * handlers live with their owners (usePanZoom, useNodePointer, SearchPanel, the overlay itself); a binding added
 * there is listed by adding its row here.
 */
export interface Shortcut {
  /** Stable id (`data-shortcut` in the overlay, what tests look for). */
  id: string;
  /** The keys as printed, e.g. `Ctrl + wheel`, translated. */
  keys: MessageKey;
  /** What it does. */
  action: MessageKey;
  /** Where it applies. */
  scope: 'graph' | 'search' | 'page';
}

export const SHORTCUTS: readonly Shortcut[] = [
  { id: 'zoom-keys', keys: 'keys.ws', action: 'keys.ws.action', scope: 'graph' },
  { id: 'pan-keys', keys: 'keys.ad', action: 'keys.ad.action', scope: 'graph' },
  { id: 'wheel', keys: 'keys.wheel', action: 'keys.wheel.action', scope: 'graph' },
  { id: 'ctrl-wheel', keys: 'keys.ctrlWheel', action: 'keys.ctrlWheel.action', scope: 'graph' },
  { id: 'drag', keys: 'keys.drag', action: 'keys.drag.action', scope: 'graph' },
  { id: 'click', keys: 'keys.click', action: 'keys.click.action', scope: 'graph' },
  { id: 'double-click', keys: 'keys.dblclick', action: 'keys.dblclick.action', scope: 'graph' },
  { id: 'right-click', keys: 'keys.rightClick', action: 'keys.rightClick.action', scope: 'graph' },
  { id: 'enter', keys: 'keys.enter', action: 'keys.enter.action', scope: 'search' },
  { id: 'shift-enter', keys: 'keys.shiftEnter', action: 'keys.shiftEnter.action', scope: 'search' },
  { id: 'escape', keys: 'keys.esc', action: 'keys.esc.action', scope: 'page' },
  { id: 'help', keys: 'keys.help', action: 'keys.help.action', scope: 'page' },
  // Issue 15's match steps: handled by state/overlayActions.ts (commands/matchOps.ts undoRedoKey).
  { id: 'undo', keys: 'keys.undo', action: 'keys.undo.action', scope: 'page' },
  { id: 'redo', keys: 'keys.redo', action: 'keys.redo.action', scope: 'page' },
];

/** The parts of a keydown the overlay's toggle looks at (a plain object in tests, a KeyboardEvent in the page). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The focused element's tag name and whether it is content-editable. */
  targetTag: string;
  targetEditable: boolean;
}

const TYPING_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

/** `?` opens the overlay, except while typing (a `?` in the search box is text) or with a modifier other than Shift. */
export function opensShortcuts(press: KeyPress): boolean {
  if (press.key !== '?' || press.ctrlKey || press.metaKey || press.altKey) return false;
  return !press.targetEditable && !TYPING_TAGS.has(press.targetTag.toUpperCase());
}
