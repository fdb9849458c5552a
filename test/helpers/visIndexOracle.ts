import { expect } from 'vitest';
import type { Side } from '../../src/core/api/types.js';
import { DEFAULT_FIND_LIMIT, type FilterQuery } from '../../server/store/findQuery.js';
import { GraphFileError, type GraphStore } from '../../server/store/graphStore.js';
import { VisJsonStore } from '../../server/store/visJson/visJsonStore.js';
import { buildVisIndex, VisIndexError } from '../../server/store/visJsonIndex/buildIndex.js';
import { bufferSource } from '../../server/store/visJsonIndex/byteSource.js';
import { memoryBytes } from '../../server/store/visJsonIndex/nodeBytes.js';
import { VisIndexStore } from '../../server/store/visJsonIndex/visIndexStore.js';

/**
 * The streamed index against whole-file parsing: the same text through VisIndexStore (at a given chunk size) and
 * through VisJsonStore must answer every question alike, or fail with the same problem.
 */

const opts = { file: 'x.vis', run: '.', tag: 'x' };

export function indexStore(bytes: Uint8Array, chunkSize: number): VisIndexStore {
  const index = buildVisIndex(bufferSource(bytes), { stamp: { size: bytes.length, mtimeMs: 0, ino: 0 }, chunkSize });
  return new VisIndexStore(index, memoryBytes(bytes), opts);
}

/** Either a store or the one-line problem, with the index's " (byte N)" suffix removed for comparison. */
export function openBoth(bytes: Uint8Array, chunkSize: number) {
  let whole: GraphStore | string;
  let indexed: GraphStore | string;
  try {
    whole = new VisJsonStore(Buffer.from(bytes).toString('utf8'), opts);
  } catch (e) {
    if (!(e instanceof GraphFileError)) throw e;
    whole = e.problem;
  }
  try {
    indexed = indexStore(bytes, chunkSize);
  } catch (e) {
    if (!(e instanceof VisIndexError)) throw e;
    indexed = e.problem.replace(/ \(byte \d+\)$/, '');
  }
  return { whole, indexed };
}

const FILTERS: Array<Omit<FilterQuery, 'side' | 'limit'>> = [
  { precision: [[0, 0.2]], unmatched: false, overflow: [], leaves: false },
  { precision: [[0.8, 1], [0, 0]], unmatched: true, overflow: [], leaves: true },
  { precision: [], unmatched: false, overflow: ['medium', 'high', 'critical'], leaves: false },
  { precision: [], unmatched: false, overflow: [], leaves: true },
];

/** Every question the API can ask, compared. Returns the number of nodes visited. */
export function expectSameAnswers(whole: GraphStore, indexed: GraphStore, queries: string[] = []): number {
  expect(indexed.meta()).toEqual(whole.meta());
  const meta = whole.meta();
  let visited = 0;
  for (const side of ['npu', 'bench'] as Side[]) {
    if (!meta.roots[side]) continue;
    // Every node reachable or not: walk ids from the whole-file store's search of "" (all nodes, execution order).
    const all = whole.search({ side, query: '', limit: Number.MAX_SAFE_INTEGER });
    expect(indexed.search({ side, query: '', limit: Number.MAX_SAFE_INTEGER })).toEqual(all);
    for (const { id } of all.results) {
      visited++;
      expect(indexed.node({ side, nodeId: id })).toEqual(whole.node({ side, nodeId: id }));
      expect(indexed.children({ side, nodeId: id })).toEqual(whole.children({ side, nodeId: id }));
    }
    for (let micro = -1; micro < meta.microSteps; micro++) {
      expect(indexed.children({ side, micro })).toEqual(whole.children({ side, micro }));
    }
    const rootKids = whole.children({ side })!.total!;
    // The group of nodes the root does not reach (issue 14 #11) answers the same in both.
    const group = whole.children({ side })!.children.find((c) => c.synthetic === 'unreachable');
    if (group) {
      expect(indexed.node({ side, nodeId: group.id })).toEqual(whole.node({ side, nodeId: group.id }));
      expect(indexed.children({ side, nodeId: group.id })).toEqual(whole.children({ side, nodeId: group.id }));
    }
    for (const [offset, limit] of [[0, 1], [1, 2], [rootKids - 1, 5], [rootKids + 3, 2]]) {
      expect(indexed.children({ side, offset, limit })).toEqual(whole.children({ side, offset, limit }));
    }
    for (const query of ['module', 'FORWARD.0', '.', 'no-such-node-anywhere', '/forward\\.\\d+$/', '/^MODULE/i', ...queries]) {
      expect(indexed.search({ side, query, limit: 7 })).toEqual(whole.search({ side, query, limit: 7 }));
    }
    for (const f of FILTERS) {
      const q = { ...f, side, limit: DEFAULT_FIND_LIMIT };
      expect(indexed.filter(q)).toEqual(whole.filter(q));
    }
    // The worst table's list, built with the index (visIndex.ts `rated`): every node in output order, and a page.
    const [ratedIndexed, ratedWhole] = [indexed.rated({ side }), whole.rated({ side })];
    expect(ratedIndexed.values).toEqual(ratedWhole.values);
    const ids = (r: typeof ratedWhole) => Array.from(r.values, (_, k) => r.idAt(k));
    expect(ids(ratedIndexed)).toEqual(ids(ratedWhole));
    for (const order of ['execution', 'precision'] as const) {
      const q = { side, order, offset: 0, limit: 50 };
      expect(indexed.worst(q)).toEqual(whole.worst(q));
    }
    expect(indexed.node({ side, nodeId: 'no such node' })).toBeUndefined();
    expect(indexed.children({ side, nodeId: 'no such node' })).toBeUndefined();
  }
  return visited;
}
