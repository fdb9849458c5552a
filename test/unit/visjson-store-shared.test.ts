import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VisJsonStore } from '../../server/store/visJson/visJsonStore.js';
import { describeSharedVisFiles, repoRoot, visFilesUnder } from '../helpers/shared.js';
import { expectStoreMatchesFile } from '../helpers/visOracle.js';

/** Every real `.vis` we have, read through the store and compared with the file field by field. */

function checkAll(files: string[], base: string) {
  for (const file of files) {
    const rel = path.relative(base, file);
    it(rel, () => {
      const text = readFileSync(file, 'utf8');
      const store = new VisJsonStore(text, { file: rel, run: path.dirname(rel), tag: path.basename(rel, '.vis') });
      expect(expectStoreMatchesFile(store, text).nodes).toBeGreaterThan(0);
    });
  }
}

describeSharedVisFiles('store reads every .vis in ../shared/data', checkAll);

const examples = visFilesUnder(path.join(repoRoot, 'examples'));
(examples.length > 0 ? describe : describe.skip)('store reads every .vis in examples/', () => {
  checkAll(examples, path.join(repoRoot, 'examples'));
});
