import { afterEach, describe, expect, it, vi } from 'vitest';
import { overlayApi } from '../../src/app/api/overlay.js';

/**
 * A pane's recolour (issue 15) sends its ids once and the view key the server answered after that
 * (src/core/api/overlay.ts); a server that no longer holds the key (409 `viewUnknown`) gets the ids again.
 */
describe('overlay summaries client', () => {
  const realFetch = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

  it('names the ids by their view key while they stay the same, and sends them again when the server forgot them', async () => {
    const bodies: any[] = [];
    let held = new Map<string, string[]>();
    let next = 0;
    // A server that keeps views until `held` is cleared (a restart).
    globalThis.fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      const body = JSON.parse(String(init!.body));
      bodies.push(body);
      const ids = body.view !== undefined ? held.get(body.view) : body.ids;
      if (!ids) return json(409, { error: 'view unknown', code: 'viewUnknown' });
      const view = body.view ?? `v${next++}`;
      held.set(view, ids);
      return json(200, { view, missing: [], precisionIndex: ids.map((_: string, k: number) => k / 10) });
    }) as typeof fetch;
    const ref = { run: 'r', tag: 't' };
    const ask = (ids: string[]) => overlayApi.summaries(ref, 'npu', ids, 'precision');
    const expected = (ids: string[]) => ids.map((id, k) => ({ id, precisionIndex: k / 10 }));

    expect(await ask(['a', 'b'])).toEqual(expected(['a', 'b']));
    expect(await ask(['a', 'b'])).toEqual(expected(['a', 'b']));
    expect(bodies.map((b) => b.view ?? b.ids)).toEqual([['a', 'b'], 'v0']);
    // Other ids (the pane expanded a node): sent, and named by their new key next time.
    expect(await ask(['a', 'b', 'c'])).toEqual(expected(['a', 'b', 'c']));
    expect(await ask(['a', 'b', 'c'])).toEqual(expected(['a', 'b', 'c']));
    expect(bodies.slice(2).map((b) => b.view ?? b.ids)).toEqual([['a', 'b', 'c'], 'v1']);
    // The server restarted: the key is refused once, the ids go again.
    held = new Map();
    expect(await ask(['a', 'b', 'c'])).toEqual(expected(['a', 'b', 'c']));
    expect(bodies.slice(4).map((b) => b.view ?? b.ids)).toEqual(['v1', ['a', 'b', 'c']]);
    // The other side has its own key.
    await overlayApi.summaries(ref, 'bench', ['a', 'b', 'c'], 'precision');
    expect(bodies.at(-1).ids).toEqual(['a', 'b', 'c']);
  });
});
