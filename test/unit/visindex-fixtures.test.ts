import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeShared, repoRoot, sharedDataDir } from '../helpers/shared.js';
import { expectSameAnswers, openBoth } from '../helpers/visIndexOracle.js';
import { expectStoreMatchesFile } from '../helpers/visOracle.js';
import { indexStore } from '../helpers/visIndexOracle.js';

/** Every real `.vis` we have, through the streamed index and through whole-file parsing: same answers everywhere. */

function visFilesUnder(dir: string, depth = 4): string[] {
  if (!existsSync(dir) || depth < 0) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return visFilesUnder(p, depth - 1);
    return e.isFile() && e.name.endsWith('.vis') ? [p] : [];
  });
}

function checkAll(files: string[], base: string) {
  for (const file of files) {
    const bytes = readFileSync(file);
    // Tiny chunks cost a refill per few bytes: used on the smaller files.
    const chunks = bytes.length < 400_000 ? [7, 4096] : [65_536];
    for (const chunk of chunks) {
      it(`${path.relative(base, file)} (chunk ${chunk})`, () => {
        const { whole, indexed } = openBoth(bytes, chunk);
        if (typeof whole === 'string') {
          // A broken fixture (e2e's truncated.vis): both readers refuse it with the same problem.
          expect(indexed).toBe(whole);
          return;
        }
        if (typeof indexed === 'string') throw new Error(indexed);
        expect(expectSameAnswers(whole, indexed)).toBeGreaterThan(0);
        expect(expectStoreMatchesFile(indexStore(bytes, chunk), bytes.toString('utf8')).nodes).toBeGreaterThan(0);
      });
    }
  }
}

describeShared('streamed index = whole-file parse: every .vis in ../shared/data', () => {
  const data = sharedDataDir()!;
  const legacy = visFilesUnder(path.join(data, 'vis'), 0);
  const golden = readdirSync(path.join(data, 'golden')).flatMap((c) =>
    readdirSync(path.join(data, 'golden', c))
      .filter((d) => d.startsWith('vis-'))
      .flatMap((d) => visFilesUnder(path.join(data, 'golden', c, d), 0)),
  );
  it('finds the files the data README promises', () => {
    expect(legacy).toHaveLength(2);
    expect(golden.length).toBeGreaterThanOrEqual(32);
  });
  checkAll([...legacy, ...golden], data);
});

describe('streamed index = whole-file parse: test fixtures and examples', () => {
  const files = [...visFilesUnder(path.join(repoRoot, 'test/fixtures')), ...visFilesUnder(path.join(repoRoot, 'examples'))];
  it('finds them', () => expect(files.length).toBeGreaterThanOrEqual(6));
  checkAll(files, repoRoot);
});
