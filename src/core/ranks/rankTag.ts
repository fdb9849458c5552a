/**
 * Per-rank `.vis` files of one run (msprobe-format.md §4.4): `{build|compare}_rank{N}_{ts}` and
 * `{build|compare}_step{S}_rank{N}_{ts}`, `ts` shared by every file of one graph command. A `.vis.db` holds every rank
 * in one file instead. Pure, so the server (heatmap rows) and the app (a peer rank's file) read tags the same way.
 */

export interface RankTag {
  kind: 'build' | 'compare';
  step: number;
  rank: number;
  ts: string;
}

const RANK_TAG = /^(build|compare)_(?:step(\d{1,9})_)?rank(\d{1,9})_(\d{14})$/;

/** The tag's step and rank, or null for a tag of another shape (single graphs, merged groups, renamed files). */
export function parseRankTag(tag: string): RankTag | null {
  const m = RANK_TAG.exec(tag);
  if (!m) return null;
  return { kind: m[1] as RankTag['kind'], step: m[2] === undefined ? 0 : Number(m[2]), rank: Number(m[3]), ts: m[4] };
}

export interface RankFile {
  rank: number;
  tag: string;
}

/**
 * The `.vis` files of the same graph command and step as `tag` (itself included), one per rank, by rank; [] when
 * `tag` names no rank. `files` are the run's listed files.
 */
export function rankSiblings(files: ReadonlyArray<{ tag: string; format: string }>, tag: string): RankFile[] {
  const own = parseRankTag(tag);
  if (!own) return [];
  const byRank = new Map<number, string>();
  for (const f of files) {
    if (f.format !== 'vis') continue;
    const p = parseRankTag(f.tag);
    if (!p || p.kind !== own.kind || p.step !== own.step || p.ts !== own.ts || byRank.has(p.rank)) continue;
    byRank.set(p.rank, f.tag);
  }
  return [...byRank].sort((a, b) => a[0] - b[0]).map(([rank, t]) => ({ rank, tag: t }));
}
