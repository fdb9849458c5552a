import type { Side } from '../../src/core/api/types.js';
import type { GraphSelector } from '../store/findQuery.js';
import type { GraphStore } from '../store/graphStore.js';
import { checkBudget } from '../store/workBudget.js';

/**
 * Where two nodes of one side stand in the orders the stores list them in, from their paths alone: `pre` is search
 * and filter order (a node before its descendants), `post` the worst table's execution order (a module after its last
 * child; worstQuery.ts). Siblings compare by their place in the parent's children list, read once per parent. The
 * store's "unreachable from the root" group is the root's last child; in `post` order its nodes follow the root, as
 * the stores list them.
 *
 * Used to merge the few nodes an overlay changes into a store's answer without listing the whole side again.
 */
export class ExecOrder {
  private readonly positions = new Map<string, Map<string, number>>();

  constructor(
    private readonly store: () => GraphStore,
    private readonly side: Side,
    private readonly graph: GraphSelector,
    private readonly isGroup: (id: string) => boolean,
  ) {}

  /** Negative when `a` (ancestors `aPath`) comes first. */
  compare(order: 'pre' | 'post', aPath: readonly string[], a: string, bPath: readonly string[], b: string): number {
    if (a === b) return 0;
    const n = Math.min(aPath.length, bPath.length);
    let i = 0;
    while (i < n && aPath[i] === bPath[i]) i++;
    const aNext = i < aPath.length ? aPath[i] : a;
    const bNext = i < bPath.length ? bPath[i] : b;
    // One is an ancestor of the other: first in `pre`, last in `post`, except the root against the unreachable group.
    if (aNext === b) return order === 'pre' || (i === 0 && this.unreachable(aPath)) ? 1 : -1;
    if (bNext === a) return order === 'pre' || (i === 0 && this.unreachable(bPath)) ? -1 : 1;
    if (i === 0) return aNext < bNext ? -1 : 1;
    const parent = aPath[i - 1];
    return this.position(parent, aNext) - this.position(parent, bNext);
  }

  /** Whether a path runs through the unreachable group (always the root's child, so path[1]). */
  private unreachable(path: readonly string[]): boolean {
    return path.length >= 2 && this.isGroup(path[1]);
  }

  private position(parent: string, child: string): number {
    let map = this.positions.get(parent);
    if (!map) {
      map = new Map();
      const answer = this.store().children({ side: this.side, nodeId: parent, ...this.graph });
      const kids = answer?.children ?? [];
      for (let k = 0; k < kids.length; k++) {
        checkBudget();
        if (!map.has(kids[k].id)) map.set(kids[k].id, k);
      }
      this.positions.set(parent, map);
    }
    return map.get(child) ?? Number.MAX_SAFE_INTEGER;
  }
}
