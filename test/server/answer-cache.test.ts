import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerCache } from '../../server/http/answerCache.js';
import { createApp } from '../../server/http/app.js';
import type { GraphStore } from '../../server/store/graphStore.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';

/** The shared /children answer cache: per store, within its byte budget, never stale after a rewrite. */

describe('AnswerCache', () => {
  const a = {} as GraphStore;
  const b = {} as GraphStore;

  it('keeps answers per store: another store (a rewritten file) never sees them', () => {
    const cache = new AnswerCache(1024);
    cache.set(a, 'k', 'A');
    expect(cache.get(a, 'k')).toBe('A');
    expect(cache.get(b, 'k')).toBeUndefined();
  });

  it('drops the least recently used answers past its byte budget, and skips answers too large to keep', () => {
    const cache = new AnswerCache(1000); // 2 bytes a character: room for ten 50-character answers
    const keys = Array.from({ length: 10 }, (_, i) => String(i));
    for (const k of keys) cache.set(a, k, k.repeat(50 / k.length));
    cache.get(a, '0'); // now the most recent
    cache.set(a, 'new', 'n'.repeat(50));
    expect(cache.get(a, '1')).toBeUndefined();
    expect(cache.get(a, '0')).toBe('0'.repeat(50));
    expect(cache.get(a, 'new')).toBe('n'.repeat(50));
    expect(cache.get(a, '9')).toBe('9'.repeat(50));
    cache.set(a, 'big', 'x'.repeat(63)); // over an eighth of the budget
    expect(cache.get(a, 'big')).toBeUndefined();
  });
});

describe('/children through the cache', () => {
  let tmp: string;
  let served: ServedApp;
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'pb-answer-cache-'));
    mkdirSync(path.join(tmp, 'logs'));
    copyFileSync(path.join(repoRoot, 'test/fixtures/vis/builder_build-202507.vis'), path.join(tmp, 'logs/g.vis'));
    served = await serveApp(createApp({ logdir: path.join(tmp, 'logs'), appDir: tmp, stores: createStoreCache({ cacheDir: null }) }));
  });
  afterAll(async () => {
    await served.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('answers the same bytes again, and the new file once it is rewritten', async () => {
    const url = '/api/graph/children?run=.&tag=g';
    const first = await rawGet(served.port, url);
    const again = await rawGet(served.port, url);
    expect(first.status).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    const file = path.join(tmp, 'logs/g.vis');
    const child = first.json.children[0].id as string;
    const renamed = `${child}_renamed`;
    const before = statSync(file);
    writeFileSync(file, readFileSync(file, 'utf8').split(JSON.stringify(child)).join(JSON.stringify(renamed)));
    utimesSync(file, before.atime, new Date(before.mtimeMs + 5000));
    const after = await rawGet(served.port, url);
    expect(after.status).toBe(200);
    expect(after.json.children[0].id).toBe(renamed);
  });
});
