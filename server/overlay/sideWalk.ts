import type { NodeSummary, Side } from '../../src/core/api/types.js';
import { HttpError } from '../http/httpError.js';
import type { GraphSelector } from '../store/findQuery.js';
import type { GraphStore } from '../store/graphStore.js';
import { checkBudget, WorkInProgress } from '../store/workBudget.js';

/** Nodes a side may have for its list to be kept (about 300 bytes each with the shared paths). */
export const MAX_LISTED_NODES = 300_000;

/**
 * Every node of one side in pre-order (the order search and filter list), each with its ancestors, read through the
 * store's own `/children` answers — an overlay store's walk sees its patched summaries — and kept once complete: for
 * the lists no index answers (the matched nodes; a precision filter under a metric choice). The walk goes on across
 * requests: each reads for at most `sliceMs`, then answers 202 with the progress (WorkInProgress) and the client asks
 * again. Siblings share one path array. The synthetic "unreachable" group is walked into but not listed.
 */
export class SideWalk {
  readonly nodes: NodeSummary[] = [];
  readonly paths: string[][] = [];
  private stack: Array<{ node: NodeSummary; path: string[] }> | null = null;
  private done = false;

  constructor(
    private readonly side: Side,
    private readonly selector: GraphSelector,
    private readonly file: string,
  ) {}

  /** The complete list, walking on for at most `sliceMs` of this request first. */
  list(store: GraphStore, sliceMs: number): this {
    if (this.done) return this;
    const meta = store.meta(this.selector);
    const total = meta.nodeCounts[this.side] ?? 0;
    if (total > MAX_LISTED_NODES) {
      throw new HttpError(422, 'overlayTooLarge', { file: this.file, side: this.side, count: total, max: MAX_LISTED_NODES });
    }
    if (this.stack === null) {
      const root = meta.roots[this.side];
      const rootNode = root === undefined ? undefined : store.node({ side: this.side, nodeId: root, ...this.selector });
      this.stack = rootNode ? [{ node: rootNode, path: [] }] : [];
    }
    const stopAt = performance.now() + sliceMs;
    // An explicit stack: files nest thousands of levels deep.
    while (this.stack.length > 0) {
      checkBudget();
      if (performance.now() > stopAt) throw new WorkInProgress(this.file, this.nodes.length, total);
      const { node, path } = this.stack.pop()!;
      if (!node.synthetic) {
        const { id, nodeType, precisionIndex, overflowLevel, matchedNodeLink, childCount, microStepId } = node;
        this.nodes.push({ id, nodeType, precisionIndex, overflowLevel, matchedNodeLink, childCount, microStepId });
        this.paths.push(path);
      }
      if (node.childCount === 0) continue;
      const kids = store.children({ side: this.side, nodeId: node.id, ...this.selector })?.children ?? [];
      const childPath = [...path, node.id];
      for (let i = kids.length - 1; i >= 0; i--) this.stack.push({ node: kids[i], path: childPath });
    }
    this.stack = null;
    this.done = true;
    return this;
  }

  /** Rough bytes held, for the registry's bound. */
  get bytes(): number {
    return this.nodes.length * 300;
  }
}
