import type { NodeSummary } from '../../src/core/api/types.js';

/** Summaries kept per side: a fully expanded 10^5-node view, with room (about 200 bytes each). */
const MAX_PER_SIDE = 200_000;

/**
 * Summaries a store has answered, per side (any key naming it) and node key: they do not change while the file version
 * stays (a store belongs to one version), and a recolour after an overlay change asks again for every node the view
 * holds (`/api/overlay/summaries`) — kept, those need no file reads. Past the bound a side starts over.
 */
export class SummaryCache<S, K> {
  private readonly sides = new Map<S, Map<K, NodeSummary>>();

  get(side: S, key: K): NodeSummary | undefined {
    return this.sides.get(side)?.get(key);
  }

  put(side: S, key: K, s: NodeSummary): void {
    let map = this.sides.get(side);
    if (!map) this.sides.set(side, (map = new Map()));
    if (map.size >= MAX_PER_SIDE && !map.has(key)) map.clear();
    map.set(key, s);
  }
}
