import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVisIndex } from '../../server/store/visJsonIndex/buildIndex.js';
import { pruneCache } from '../../server/store/visJsonIndex/cachePrune.js';
import { bufferSource } from '../../server/store/visJsonIndex/byteSource.js';
import { indexCachePath, readIndexCache, writeIndexCache } from '../../server/store/visJsonIndex/indexCache.js';
import { packIndex, unpackIndex } from '../../server/store/visJsonIndex/indexCodec.js';
import { runIndexJob, type IndexJobMessage } from '../../server/store/visJsonIndex/indexJob.js';
import { repoRoot } from '../helpers/shared.js';

/** The index cache: a round trip keeps every array, anything stale or damaged reads as "no cache", writes are atomic. */

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-idxcache-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fixture = readFileSync(path.join(repoRoot, 'test/fixtures/vis/multistep_compare-202507.vis'));
const stamp = { size: fixture.length, mtimeMs: 1234.5, ino: 42 };
const index = buildVisIndex(bufferSource(fixture), { stamp });

describe('index cache', () => {
  it('round trip: same header and arrays', () => {
    const dir = path.join(tmp, 'a');
    writeIndexCache(dir, '/logs/x.vis', packIndex(index));
    const back = readIndexCache(dir, '/logs/x.vis', stamp);
    expect(back).not.toBeNull();
    expect(unpackIndex(back!)).toEqual(index);
    // Only the finished file is left: the temporary name was renamed.
    expect(readdirSync(path.dirname(indexCachePath(dir, '/logs/x.vis')))).toEqual([path.basename(indexCachePath(dir, '/logs/x.vis'))]);
  });

  it('another stamp, another path, a truncated or damaged file: no cache', () => {
    const dir = path.join(tmp, 'b');
    writeIndexCache(dir, '/logs/x.vis', packIndex(index));
    expect(readIndexCache(dir, '/logs/x.vis', { ...stamp, mtimeMs: 1 })).toBeNull();
    expect(readIndexCache(dir, '/logs/x.vis', { ...stamp, ino: 7 })).toBeNull();
    expect(readIndexCache(dir, '/logs/y.vis', stamp)).toBeNull();
    const file = indexCachePath(dir, '/logs/x.vis');
    const bytes = readFileSync(file);
    truncateSync(file, bytes.length - 3);
    expect(readIndexCache(dir, '/logs/x.vis', stamp)).toBeNull();
    writeFileSync(file, Buffer.concat([Buffer.from('garbage!'), bytes.subarray(8)]));
    expect(readIndexCache(dir, '/logs/x.vis', stamp)).toBeNull();
  });

  it('a job reuses a matching cache and reports a cache it cannot write as a warning, not an error', () => {
    const file = path.join(tmp, 'real.vis');
    writeFileSync(file, fixture);
    const run = (cacheDir: string) => {
      const msgs: IndexJobMessage[] = [];
      const st = statSync(file);
      runIndexJob({ absPath: file, stamp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino }, cacheDir, chunkSize: 4096 }, (m) => msgs.push(m));
      return msgs.filter((m) => m.type !== 'progress');
    };
    const first = run(path.join(tmp, 'c'));
    expect(first.map((m) => m.type)).toEqual(['done']);
    expect(first[0]).toMatchObject({ fromCache: false });
    expect(run(path.join(tmp, 'c'))[0]).toMatchObject({ type: 'done', fromCache: true });
    const blocked = path.join(tmp, 'not-a-dir');
    writeFileSync(blocked, '');
    const msgs = run(blocked);
    expect(msgs.map((m) => m.type)).toEqual(['warning', 'done']);
    expect((msgs[0] as { message: string }).message).toMatch(/^cannot write the index cache in .*not-a-dir \(ENOTDIR\); keeping it in memory$/);
  });
});

describe('index cache pruning', () => {
  const make = (dir: string, name: string, usedSecondsAgo: number) => {
    const file = path.join(tmp, `${dir}-${name}.vis`);
    writeFileSync(file, fixture);
    const st = statSync(file);
    const own = buildVisIndex(bufferSource(fixture), { stamp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino } });
    writeIndexCache(path.join(tmp, dir), file, packIndex(own));
    const idx = indexCachePath(path.join(tmp, dir), file);
    const t = new Date(Date.now() - usedSecondsAgo * 1000);
    utimesSync(idx, t, t);
    return { file, idx, size: statSync(idx).size };
  };

  it('drops stale temporaries, indexes of deleted files, then the least recently used down to the budget', () => {
    const a = make('p', 'a', 400);
    const b = make('p', 'b', 300);
    const c = make('p', 'c', 200);
    const d = make('p', 'd', 100);
    const gone = make('p', 'gone', 10);
    rmSync(gone.file);
    const staleTmp = path.join(path.dirname(a.idx), 'x.idx.1.dead.tmp');
    const freshTmp = path.join(path.dirname(a.idx), 'y.idx.2.live.tmp');
    writeFileSync(staleTmp, 'partial');
    writeFileSync(freshTmp, 'partial');
    utimesSync(staleTmp, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
    // Room for two indexes; `a` (the oldest) was just written, so it stays whatever its age.
    const result = pruneCache(path.join(tmp, 'p'), 2.5 * a.size, a.idx);
    expect(new Set(result.removed)).toEqual(new Set([gone.idx, staleTmp, b.idx, c.idx]));
    expect(readdirSync(path.dirname(a.idx)).sort()).toEqual([a.idx, d.idx, freshTmp].map((f) => path.basename(f)).sort());
    expect(result.keptBytes).toBe(a.size + d.size);
  });

  it('an index in use moves to the back of the line; a job prunes after writing', () => {
    const old = make('q', 'old', 500);
    const used = make('q', 'used', 900);
    const run = (file: string) => {
      const st = statSync(file);
      const msgs: IndexJobMessage[] = [];
      runIndexJob(
        { absPath: file, stamp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino }, cacheDir: path.join(tmp, 'q'), cacheMaxBytes: 2.5 * old.size },
        (m) => msgs.push(m),
      );
      return msgs.find((m) => m.type === 'done');
    };
    // Reading `used` from the cache marks it: `old` is now the least recently used.
    expect(run(used.file)).toMatchObject({ fromCache: true });
    const fresh = path.join(tmp, 'q-fresh.vis');
    writeFileSync(fresh, fixture);
    expect(run(fresh)).toMatchObject({ fromCache: false });
    expect(readdirSync(path.dirname(old.idx)).sort()).toEqual([used.idx, indexCachePath(path.join(tmp, 'q'), fresh)].map((f) => path.basename(f)).sort());
  });
});
