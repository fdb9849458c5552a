import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVisIndex } from '../../server/store/visJsonIndex/buildIndex.js';
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
