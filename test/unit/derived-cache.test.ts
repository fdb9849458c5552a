import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedCachePath, readDerived, writeDerived } from '../../server/store/derivedCache.js';
import { pruneCache } from '../../server/store/visJsonIndex/cachePrune.js';
import { writeIndexCache, indexCachePath } from '../../server/store/visJsonIndex/indexCache.js';
import { packIndex } from '../../server/store/visJsonIndex/indexCodec.js';
import { buildVisIndex } from '../../server/store/visJsonIndex/buildIndex.js';
import { bufferSource } from '../../server/store/visJsonIndex/byteSource.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * derivedCache.ts: data derived from a user's file, kept in our cache directory between server processes. A round
 * trip keeps header and arrays; another stamp, key, path or kind, a damaged or truncated file read as "nothing";
 * writes leave no temporary file; pruning treats derived entries and indexes as one budget.
 */

let tmp: string;
/** A source file that exists (entries of deleted files are pruned at the next write). */
let x: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-derived-'));
  x = path.join(tmp, 'x.vis.db');
  writeFileSync(x, '');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const stamp = { size: 1000, mtimeMs: 1234.5, ino: 42 };
const arrays = () => [Float64Array.from([3, 1, 2, 2 ** 40]), Float64Array.from([0.5, 1, Number.MIN_VALUE, -0]), Uint8Array.from([1, 2, 3]), Int32Array.from([-1, 7])];

/** Every file under `dir`, relative. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath ?? d.path, d.name)))
    .sort();
}

describe('derived cache', () => {
  it('round trip: the header and every array, under derived/<kind>/, mode 0600, no temporary file left', () => {
    const dir = path.join(tmp, 'a');
    writeDerived(dir, 'test-kind-v1', x, '0/0/NPU', stamp, { note: 'é', n: 3 }, arrays());
    const back = readDerived(dir, 'test-kind-v1', x, '0/0/NPU', stamp);
    expect(back).toEqual({ header: { note: 'é', n: 3 }, arrays: arrays() });
    const file = derivedCachePath(dir, 'test-kind-v1', x, '0/0/NPU');
    expect(path.relative(dir, file)).toMatch(/^derived\/test-kind-v1\/[0-9a-f]{40}\.bin$/);
    expect(tree(dir)).toEqual([path.relative(dir, file)]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Each key is its own file; rewriting one replaces it.
    writeDerived(dir, 'test-kind-v1', x, '0/1/NPU', stamp, {}, [new Float64Array(0)]);
    writeDerived(dir, 'test-kind-v1', x, '0/0/NPU', { ...stamp, size: 7 }, {}, [Float64Array.of(9)]);
    expect(tree(dir)).toHaveLength(2);
    expect(readDerived(dir, 'test-kind-v1', x, '0/1/NPU', stamp)?.arrays).toEqual([new Float64Array(0)]);
    expect(readDerived(dir, 'test-kind-v1', x, '0/0/NPU', { ...stamp, size: 7 })?.arrays).toEqual([Float64Array.of(9)]);
    expect(() => derivedCachePath(dir, '../escape', '/x', 'k')).toThrow(/not a plain name/);
  });

  it('another size, mtime, inode, key, path or kind: nothing', () => {
    const dir = path.join(tmp, 'b');
    writeDerived(dir, 'k1', x, 'key', stamp, {}, arrays());
    expect(readDerived(dir, 'k1', x, 'key', stamp)).not.toBeNull();
    for (const other of [{ ...stamp, size: 1001 }, { ...stamp, mtimeMs: 1234.6 }, { ...stamp, ino: 43 }]) {
      expect(readDerived(dir, 'k1', x, 'key', other)).toBeNull();
    }
    expect(readDerived(dir, 'k1', x, 'key2', stamp)).toBeNull();
    expect(readDerived(dir, 'k1', '/logs/y.vis.db', 'key', stamp)).toBeNull();
    expect(readDerived(dir, 'k2', x, 'key', stamp)).toBeNull();
    expect(readDerived(path.join(tmp, 'nowhere'), 'k1', x, 'key', stamp)).toBeNull();
  });

  it('a damaged file is nothing: a flipped data byte, truncated, extended, another magic, a broken header', () => {
    const dir = path.join(tmp, 'c');
    const read = () => readDerived(dir, 'k', x, 'key', stamp);
    const file = derivedCachePath(dir, 'k', x, 'key');
    writeDerived(dir, 'k', x, 'key', stamp, {}, arrays());
    const good = readFileSync(file);
    const damaged = (change: (b: Buffer) => Buffer) => {
      writeFileSync(file, change(Buffer.from(good)));
      return read();
    };
    expect(read()).not.toBeNull();
    // The digest catches a value changed in place (the size and header still fit).
    expect(damaged((b) => ((b[b.length - 20] ^= 0x40), b))).toBeNull();
    expect(damaged((b) => b.subarray(0, b.length - 8))).toBeNull();
    expect(damaged((b) => Buffer.concat([b, Buffer.alloc(8)]))).toBeNull();
    expect(damaged((b) => (b.write('XXXXXXXX', 0, 'latin1'), b))).toBeNull();
    expect(damaged((b) => (b.write('}', 12, 'latin1'), b))).toBeNull();
    expect(damaged((b) => (b.writeUInt32LE(0xffffffff, 8), b))).toBeNull();
    writeFileSync(file, '');
    expect(read()).toBeNull();
    writeFileSync(file, good);
    truncateSync(file, 10);
    expect(read()).toBeNull();
    writeFileSync(file, good);
    expect(read()).toEqual({ header: {}, arrays: arrays() });
  });

  it('a cache it cannot write throws for the caller to log, and leaves nothing behind', () => {
    const blocked = path.join(tmp, 'not-a-dir');
    writeFileSync(blocked, '');
    expect(() => writeDerived(blocked, 'k', x, 'key', stamp, {}, arrays())).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    const dir = path.join(tmp, 'd');
    writeDerived(dir, 'k', x, 'key', stamp, {}, arrays());
    const kindDir = path.dirname(derivedCachePath(dir, 'k', x, 'key'));
    // The kind's directory is read-only: the temporary file cannot be made (root ignores modes: skip the check).
    if (process.getuid?.() !== 0) {
      chmodSync(kindDir, 0o500);
      try {
        expect(() => writeDerived(dir, 'k', x, 'other', stamp, {}, arrays())).toThrow(expect.objectContaining({ code: 'EACCES' }));
      } finally {
        chmodSync(kindDir, 0o700);
      }
    }
    expect(tree(dir)).toEqual([path.relative(dir, derivedCachePath(dir, 'k', x, 'key'))]);
  });
});

describe('cache pruning covers derived data', () => {
  const fixture = readFileSync(path.join(repoRoot, 'test/fixtures/vis/multistep_compare-202507.vis'));
  const ago = (file: string, seconds: number) => {
    const t = new Date(Date.now() - seconds * 1000);
    utimesSync(file, t, t);
  };

  it('one budget for indexes and derived entries: stale temporaries, entries of deleted files, then least recently used', () => {
    const dir = path.join(tmp, 'p');
    const source = (name: string) => {
      const f = path.join(tmp, name);
      writeFileSync(f, fixture);
      return f;
    };
    const big = new Float64Array(20_000);
    const derived = (name: string, secondsAgo: number) => {
      const f = source(name);
      writeDerived(dir, 'k', f, 'key', stamp, {}, [big]);
      const file = derivedCachePath(dir, 'k', f, 'key');
      ago(file, secondsAgo);
      return { source: f, file, size: statSync(file).size };
    };
    const visFile = source('p-index.vis');
    writeIndexCache(dir, visFile, packIndex(buildVisIndex(bufferSource(fixture), { stamp })));
    const idx = indexCachePath(dir, visFile);
    ago(idx, 50);
    const oldest = derived('p-oldest.vis.db', 400);
    const old = derived('p-old.vis.db', 300);
    const recent = derived('p-recent.vis.db', 100);
    const otherKind = path.join(dir, 'derived', 'k2');
    writeDerived(dir, 'k2', visFile, 'key', stamp, {}, [big]);
    const k2 = derivedCachePath(dir, 'k2', visFile, 'key');
    ago(k2, 200);
    // (Each write prunes too: this one is gone from the next prune on.)
    const gone = derived('p-gone.vis.db', 10);
    rmSync(gone.source);
    const staleTmp = path.join(otherKind, 'x.bin.1.dead.tmp');
    const freshTmp = path.join(path.dirname(oldest.file), 'y.bin.2.live.tmp');
    writeFileSync(staleTmp, 'partial');
    writeFileSync(freshTmp, 'partial');
    ago(staleTmp, 2 * 3600);
    // Room for the index and two derived entries; `oldest` was just written, so it stays whatever its age.
    const budget = statSync(idx).size + 2.5 * oldest.size;
    const result = pruneCache(dir, budget, oldest.file);
    expect(new Set(result.removed)).toEqual(new Set([gone.file, staleTmp, old.file, k2]));
    expect(tree(dir)).toEqual([idx, oldest.file, recent.file, freshTmp].map((f) => path.relative(dir, f)).sort());
    expect(result.keptBytes).toBe(statSync(idx).size + oldest.size + recent.size);
  });

  it('reading an entry marks it used; writing one prunes the cache to the budget given', () => {
    const dir = path.join(tmp, 'q');
    const big = new Float64Array(20_000);
    // Sources that exist: entries of deleted files would go first.
    const [sa, sb, sc] = ['a', 'b', 'c'].map((n) => {
      const f = path.join(tmp, `q-${n}.vis.db`);
      writeFileSync(f, '');
      return f;
    });
    const [a, b] = [sa, sb].map((f) => {
      writeDerived(dir, 'k', f, 'key', stamp, {}, [big]);
      return derivedCachePath(dir, 'k', f, 'key');
    });
    ago(a, 900);
    ago(b, 500);
    expect(readDerived(dir, 'k', sa, 'key', stamp)).not.toBeNull();
    const size = statSync(a).size;
    writeDerived(dir, 'k', sc, 'key', stamp, {}, [big], 2.5 * size);
    // `b` is now the least recently used: `a` was read, `c` just written.
    expect(tree(dir)).toEqual([a, derivedCachePath(dir, 'k', sc, 'key')].map((f) => path.relative(dir, f)).sort());
  });
});
