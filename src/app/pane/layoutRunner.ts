import { layoutGroups } from '../../core/layout/groupLayout.js';
import type { GroupInput, GroupLayout, LayoutParams } from '../../core/layout/types.js';
import type { LayoutRequest, LayoutResponse } from '../../worker/layoutProtocol.js';

/** Runs one batch of group layouts somewhere (a worker in the browser, inline in tests). */
export interface LayoutRunner {
  run(groups: GroupInput[], params: LayoutParams): Promise<GroupLayout[]>;
  dispose(): void;
}

export const inlineLayoutRunner: LayoutRunner = {
  run: async (groups, params) => layoutGroups(groups, params),
  dispose: () => {},
};

/**
 * Layout in a Web Worker. If the worker cannot start (old browser, a CSP without `worker-src 'self'`), batches run
 * inline instead of leaving the pane blank.
 */
export function createWorkerLayoutRunner(): LayoutRunner {
  let worker: Worker | null = null;
  try {
    worker = new Worker(new URL('../../worker/layout.worker.ts', import.meta.url), { type: 'module' });
  } catch {
    return inlineLayoutRunner;
  }
  let nextId = 1;
  let broken = false;
  const waiting = new Map<number, { resolve: (l: GroupLayout[]) => void; reject: (e: Error) => void; request: LayoutRequest }>();

  worker.onmessage = (event: MessageEvent<LayoutResponse>) => {
    const message = event.data;
    const entry = waiting.get(message.requestId);
    if (!entry) return;
    waiting.delete(message.requestId);
    if (message.type === 'layout') entry.resolve(message.layouts);
    else entry.reject(new Error(`layout failed: ${message.message}`));
  };
  worker.onerror = (event) => {
    // A worker that failed to load reports here once; finish what was asked inline and stay inline from now on.
    event.preventDefault();
    broken = true;
    worker?.terminate();
    for (const [id, entry] of waiting) {
      waiting.delete(id);
      inlineLayoutRunner.run(entry.request.groups, entry.request.params).then(entry.resolve, entry.reject);
    }
  };

  return {
    run(groups, params) {
      if (broken || !worker) return inlineLayoutRunner.run(groups, params);
      const request: LayoutRequest = { type: 'layout', requestId: nextId++, groups, params };
      return new Promise((resolve, reject) => {
        waiting.set(request.requestId, { resolve, reject, request });
        worker!.postMessage(request);
      });
    },
    dispose() {
      worker?.terminate();
      for (const entry of waiting.values()) entry.reject(new Error('layout worker stopped'));
      waiting.clear();
    },
  };
}
