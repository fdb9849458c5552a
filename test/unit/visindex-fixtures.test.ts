import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSharedVisFiles, repoRoot, visFilesUnder } from '../helpers/shared.js';
import { expectSameAnswers, indexStore, openBoth } from '../helpers/visIndexOracle.js';
import { expectStoreMatchesFile } from '../helpers/visOracle.js';

/** Every real `.vis` we have, through the streamed index and through whole-file parsing: same answers everywhere. */

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

describeSharedVisFiles('streamed index = whole-file parse: every .vis in ../shared/data', checkAll);

describe('streamed index = whole-file parse: test fixtures and examples', () => {
  const files = [...visFilesUnder(path.join(repoRoot, 'test/fixtures')), ...visFilesUnder(path.join(repoRoot, 'examples'))];
  it('finds them', () => expect(files.length).toBeGreaterThanOrEqual(6));
  checkAll(files, repoRoot);
});
