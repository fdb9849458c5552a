import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VisJsonStore } from '../../server/store/visJson/visJsonStore.js';
import { describeShared, repoRoot, sharedDataDir } from '../helpers/shared.js';
import { expectStoreMatchesFile } from '../helpers/visOracle.js';

/** Every real `.vis` we have, read through the store and compared with the file field by field. */

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
    const rel = path.relative(base, file);
    it(rel, () => {
      const text = readFileSync(file, 'utf8');
      const store = new VisJsonStore(text, { file: rel, run: path.dirname(rel), tag: path.basename(rel, '.vis') });
      expect(expectStoreMatchesFile(store, text).nodes).toBeGreaterThan(0);
    });
  }
}

describeShared('store reads every .vis in ../shared/data', () => {
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

const examples = visFilesUnder(path.join(repoRoot, 'examples'));
(examples.length > 0 ? describe : describe.skip)('store reads every .vis in examples/', () => {
  checkAll(examples, path.join(repoRoot, 'examples'));
});
