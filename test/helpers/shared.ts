import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

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
