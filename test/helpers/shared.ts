import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * ../shared/data holds the original tool's goldens. It is absent on a plain clone, where those tests are skipped;
 * CI sets PROBEBOARD_REQUIRE_SHARED=1 so that a missing folder fails instead of silently skipping.
 */
export function sharedDataDir(): string | null {
  const dir = process.env.PROBEBOARD_SHARED_DATA ?? path.resolve(repoRoot, '../shared/data');
  return existsSync(dir) ? dir : null;
}

const required = process.env.PROBEBOARD_REQUIRE_SHARED === '1';

/** `describe` when ../shared/data exists; otherwise skipped, or a failing suite when PROBEBOARD_REQUIRE_SHARED=1. */
export const describeShared: (name: string, fn: () => void) => void = (name, fn) => {
  if (sharedDataDir()) describe(name, fn);
  else if (required)
    describe(name, () => {
      throw new Error(`${name}: ../shared/data is missing but PROBEBOARD_REQUIRE_SHARED=1`);
    });
  else describe.skip(name, fn);
};

/** `.vis` files below `dir`, looking at most `depth` folders down. */
export function visFilesUnder(dir: string, depth = 4): string[] {
  if (!existsSync(dir) || depth < 0) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return visFilesUnder(p, depth - 1);
    return e.isFile() && e.name.endsWith('.vis') ? [p] : [];
  });
}

/**
 * A suite over the real `.vis` files in ../shared/data (the two legacy ones in vis/ and those in the goldens' vis-*
 * folders), which first checks that the files the data README promises are there.
 */
export function describeSharedVisFiles(name: string, check: (files: string[], base: string) => void): void {
  describeShared(name, () => {
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
    check([...legacy, ...golden], data);
  });
}
