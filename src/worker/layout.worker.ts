import { layoutGroups } from '../core/layout/groupLayout.js';
import type { LayoutRequest, LayoutResponse } from './layoutProtocol.js';

/**
 * Runs group layouts off the main thread. Stateless: every request carries the groups it needs and the cached sizes
 * of their other children, so the pane's cache stays the single source of truth.
 */
// Typed by hand: the project compiles against the DOM lib, whose `self` is a Window.
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<LayoutRequest>) => void) | null;
  postMessage(message: LayoutResponse): void;
};

scope.onmessage = (event: MessageEvent<LayoutRequest>) => {
  const request = event.data;
  let response: LayoutResponse;
  try {
    const started = performance.now();
    const layouts = layoutGroups(request.groups, request.params);
    response = { type: 'layout', requestId: request.requestId, layouts, millis: performance.now() - started };
  } catch (error) {
    response = { type: 'error', requestId: request.requestId, message: error instanceof Error ? error.message : String(error) };
  }
  scope.postMessage(response);
};
