import type { ChildrenPage } from '../commands/splitTree.js';

/** Fetches `limit` children of `parentId` from `offset` (a server that ignores paging answers all of them). */
export type FetchPage = (parentId: string, offset: number, limit: number) => Promise<ChildrenPage>;

/**
 * Finds where a node sits among the children of a split group, for reveals that know only the node's real
 * ancestors (deep links without `pos=`, search results, the counterpart of a selection). A position from a link is
 * checked with a one-child request; otherwise the children are read page by page until the node turns up. Ids seen
 * are remembered per group, so stepping through search results in one large module reads it at most once.
 */
export class ChildLocator {
  private readonly known = new Map<string, Map<string, number>>();
  /** Children read so far from index 0, per group. */
  private readonly scanned = new Map<string, number>();

  constructor(
    private readonly fetchPage: FetchPage,
    private readonly pageSize = 2000,
  ) {}

  clear(): void {
    this.known.clear();
    this.scanned.clear();
  }

  async indexOf(parentId: string, childId: string, total: number, hint?: number): Promise<number | null> {
    const cached = this.lookup(parentId, childId);
    if (cached !== undefined) return cached;
    if (hint !== undefined && Number.isInteger(hint) && hint >= 0 && hint < total) {
      this.record(parentId, await this.fetchPage(parentId, hint, 1));
      const checked = this.lookup(parentId, childId);
      if (checked !== undefined) return checked;
    }
    let offset = this.scanned.get(parentId) ?? 0;
    while (offset < total) {
      const page = await this.fetchPage(parentId, offset, this.pageSize);
      this.record(parentId, page);
      const end = page.offset + page.children.length;
      if (page.offset <= offset) this.scanned.set(parentId, Math.max(offset, end));
      const found = this.lookup(parentId, childId);
      if (found !== undefined) return found;
      if (end <= offset) break;
      offset = end;
    }
    return null;
  }

  private lookup(parentId: string, childId: string): number | undefined {
    return this.known.get(parentId)?.get(childId);
  }

  private record(parentId: string, page: ChildrenPage): void {
    let ids = this.known.get(parentId);
    if (!ids) this.known.set(parentId, (ids = new Map()));
    page.children.forEach((child, i) => ids.set(child.id, page.offset + i));
  }
}
