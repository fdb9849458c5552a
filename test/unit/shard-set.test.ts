import { describe, expect, it } from 'vitest';
import type { ShardMeta } from '../../server/graph/shardMeta.js';
import { GraphFileError } from '../../server/store/graphStore.js';
import { parseShardTag, planShardSet, type ShardCandidate } from '../../server/store/visDb/shardSet.js';

/** Issue 19: which files of a directory's shard set are served, and the one line that says what is not. */

const KEY = '0123456789ab';

function meta(shard: number, shards: number, pairs: Array<[number, number]>, build = KEY): ShardMeta {
  return { build, kind: 'build', shard, shards, pairs, buildPairs: 8, rankList: [], stepList: [], buildRankList: [], buildStepList: [] };
}

function candidate(file: string, shard: ShardMeta | null, error: string | null = null): ShardCandidate<string> {
  const name = parseShardTag(file.replace(/\.vis\.db$/, ''))!;
  return { ref: file, relPath: file, name, probe: { graphType: error ? null : 'build', error: error ? new GraphFileError(file, error) : null, shard } };
}

const slice = (k: number): Array<[number, number]> => [[0, 2 * k], [0, 2 * k + 1]];

describe('parseShardTag', () => {
  it('reads the set tag, K and N; K ≥ N is no shard; the zero-padded name is canonical', () => {
    expect(parseShardTag(`build_${KEY}_shard3of8`)).toEqual({ setTag: `build_${KEY}`, index: 3, count: 8, canonical: true });
    expect(parseShardTag(`build_${KEY}_shard03of12`)).toMatchObject({ index: 3, count: 12, canonical: true });
    expect(parseShardTag(`build_${KEY}_shard3of12`)).toMatchObject({ index: 3, canonical: false });
    expect(parseShardTag(`build_${KEY}_shard8of8`)).toBeNull();
    expect(parseShardTag('build_20250101')).toBeNull();
  });
});

describe('planShardSet', () => {
  it('a whole set: every shard in shard order, no note', () => {
    const files = [3, 1, 0, 2].map((k) => candidate(`build_${KEY}_shard${k}of4.vis.db`, meta(k, 4, slice(k))));
    const plan = planShardSet('r/set', files);
    expect(plan.members.map((m) => m.meta.shard)).toEqual([0, 1, 2, 3]);
    expect([plan.note, plan.error, plan.graphType]).toEqual([null, null, 'build']);
  });

  it('missing shards are listed as ranges', () => {
    const plan = planShardSet('r/set', [candidate(`build_${KEY}_shard2of8.vis.db`, meta(2, 8, slice(2)))]);
    expect(plan.note).toEqual({ key: 'shardsMissing', params: { file: 'r/set', missing: '0-1,3-7', count: 8 } });
  });

  it('a renamed set (no key in its name) takes its build from the first readable shard', () => {
    const files = [0, 1].map((k) => candidate(`mine_shard${k}of2.vis.db`, meta(k, 2, slice(k), 'fedcba987654')));
    expect(planShardSet('r/set', files).members).toHaveLength(2);
  });

  it('overlapping pairs, an unreadable file and a file without a record are left out; the first is named, the rest counted', () => {
    const files = [
      candidate(`build_${KEY}_shard0of4.vis.db`, meta(0, 4, slice(0))),
      candidate(`build_${KEY}_shard1of4.vis.db`, meta(1, 4, [[0, 1]])),
      candidate(`build_${KEY}_shard2of4.vis.db`, null, 'the database is damaged'),
      candidate(`build_${KEY}_shard3of4.vis.db`, null),
    ];
    const plan = planShardSet('r/set', files);
    expect(plan.members.map((m) => m.meta.shard)).toEqual([0]);
    expect(plan.note).toEqual({
      key: 'shardLeftOut',
      params: { file: `build_${KEY}_shard1of4.vis.db`, problem: `overlaps build_${KEY}_shard0of4.vis.db (both hold step 0 rank 1)`, more: ' (+2)' },
    });
  });

  it('nothing readable: the first file’s problem is the error', () => {
    const plan = planShardSet('r/set', [candidate(`build_${KEY}_shard0of2.vis.db`, null, 'not a SQLite database')]);
    expect(plan.members).toEqual([]);
    expect(plan.error).toEqual({ key: 'fileUnreadable', params: { file: `build_${KEY}_shard0of2.vis.db`, problem: 'not a SQLite database' } });
    expect(plan.note).toBeNull();
  });
});
