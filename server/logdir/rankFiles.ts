import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseRankTag, rankSiblings } from '../../src/core/ranks/rankTag.js';
import type { GraphFileRef } from '../store/openStore.js';
import type { LogRoots } from './logRoots.js';
import { resolveGraphFile } from './resolveGraphFile.js';
import { splitGraphFileName } from './scanLogdir.js';

/**
 * The per-rank `.vis` files next to `ref` (same graph command and step, msprobe-format.md §4.4), each resolved as a
 * request for it would be (inside the log dir, listed names only). Empty when `ref` is not a per-rank `.vis`.
 */
export interface RankFileRef {
  rank: number;
  ref: GraphFileRef;
}

/** More files than any real cluster writes per step; past it the run is not read for a heatmap. */
export const MAX_RANK_FILES = 8192;

export function rankFiles(roots: LogRoots, ref: GraphFileRef): { step: number; files: RankFileRef[] } {
  const own = parseRankTag(ref.tag);
  if (ref.format !== 'vis' || !own) return { step: 0, files: [] };
  // The run's directory in every root that may hold it (`--logdir_spec` merges same-name runs, as the listing does).
  const names = roots.locate(ref.run).flatMap(({ root, parts }) => {
    try {
      return readdirSync(path.join(root.real, ...parts));
    } catch {
      return [];
    }
  });
  const listed = [...new Set(names)].map(splitGraphFileName).filter((n): n is NonNullable<typeof n> => n !== null);
  const files: RankFileRef[] = [];
  for (const sibling of rankSiblings(listed, ref.tag).slice(0, MAX_RANK_FILES)) {
    const resolved = resolveGraphFile(roots, ref.run, sibling.tag, 'vis');
    if (resolved.ok) files.push({ rank: sibling.rank, ref: resolved.ref });
  }
  return { step: own.step, files };
}
