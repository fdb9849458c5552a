import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildrenResponse, Side } from '../../src/core/api/types.js';
import { PaneController, type PageRequest } from '../../src/app/pane/paneController.js';
import { createPaneStore } from '../../src/app/pane/paneStore.js';
import { visibleEdges, visibleNodes } from '../../src/core/layout/scene.js';
import { approximateTextMeasurer } from '../../src/core/layout/textMeasure.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { recordingRunner } from '../helpers/layoutRunner.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { graphDef } from '../helpers/tbEncode.js';

/**
 * Issue 16: a name scope of 1,000 ops (more than a pane's split threshold of 400) with dataflow among them opens whole
 * — every op drawn, every edge of the children answer laid out — instead of as pseudo-groups that would cut its edges.
 * The pane runs headless against the real server reading a GraphDef encoded with protobufjs.
 */
const OPS = 1000;

function bigScopeGraph(): Uint8Array {
  const node: Array<Record<string, unknown>> = [{ name: 'input', op: 'Placeholder' }];
  for (let i = 0; i < OPS; i++) {
    const input = [i === 0 ? 'input' : `block/op${i - 1}`];
    if (i >= 4 && i % 4 === 0) input.push(`block/op${i - 4}`);
    node.push({ name: `block/op${i}`, op: i % 4 === 0 ? 'AddV2' : 'Relu', input });
  }
  node.push({ name: 'output', op: 'Identity', input: [`block/op${OPS - 1}`] });
  return graphDef({ node });
}

describe('a 1,000-op scope with dataflow in a pane', () => {
  let tmp: string;
  let served: ServedApp;
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-tb-scope-'));
    const logdir = path.join(tmp, 'logs');
    mkdirSync(logdir);
    writeFileSync(path.join(logdir, 'model.pb'), bigScopeGraph());
    served = await serveApp(createApp({ logdir, appDir: tmp, stores: createStoreCache({ cacheDir: null }) }));
  });
  afterAll(async () => {
    await served?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('opens whole, with every edge among its ops laid out', async () => {
    const calls: string[] = [];
    const fetcher = async (side: Side, id: string, page?: PageRequest) => {
      const q = new URLSearchParams({ run: '.', tag: 'model.pb', side, node: id });
      if (page) q.set('offset', String(page.offset)), q.set('limit', String(page.limit));
      calls.push(`${id}@${page?.offset ?? 0}`);
      for (;;) {
        const res = await fetch(`${served.origin}/api/graph/children?${q}`);
        if (res.status === 202) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        expect(res.status).toBe(200);
        return (await res.json()) as ChildrenResponse;
      }
    };
    const controller = new PaneController(createPaneStore('npu'), fetcher, recordingRunner(), approximateTextMeasurer);
    controller.resized(1200, 800);
    const meta = await (await fetch(`${served.origin}/api/graph/meta?run=.&tag=model.pb`)).json();
    const rootId = meta.roots.npu as string;
    controller.reset(rootId);
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
      expect(ok()).toBe(true);
    };
    const state = () => controller.store.getState();
    await until(() => state().layouts.has(rootId) && state().tree.nodes.has('block'));
    controller.toggle('block');
    await until(() => state().layouts.has('block') && !state().layoutBusy && state().tree.dirty.size === 0);

    const scene = visibleNodes(state().layouts, rootId);
    const ops = scene.filter((n) => n.parentId === 'block');
    expect(ops).toHaveLength(OPS);
    // Chain edges op(i-1) → op(i) plus the skip edges every 4 ops, all drawn inside the scope.
    const inner = visibleEdges(state().layouts, rootId).filter((e) => e.groupId === 'block');
    expect(inner).toHaveLength(OPS - 1 + (OPS / 4 - 1));
    expect(inner.some((e) => e.from === 'block/op4' && e.to === 'block/op8')).toBe(true);
    // One request for the whole scope (its parent's answer had edges, so it is drawn whole), no slices.
    expect(calls.filter((c) => c.startsWith('block@'))).toEqual(['block@0']);
    controller.dispose();
  });
});
