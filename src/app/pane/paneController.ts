import type { ChildrenResponse, NodeSummary, Side } from '../../core/api/types.js';
import { parseSplitId, SPLIT_THRESHOLD } from '../../core/layout/groupSplit.js';
import { locate, sceneBounds } from '../../core/layout/scene.js';
import type { TextMeasurer } from '../../core/layout/textMeasure.js';
import { DEFAULT_LAYOUT_PARAMS, type GroupLayout, type LayoutParams } from '../../core/layout/types.js';
import { collapse, fetchFailed, fetchStarted, reveal, toggle } from '../commands/expansion.js';
import { pageLoaded, placeChild, splitPath, unloadedSlices, type ChildrenPage } from '../commands/splitTree.js';
import { childrenToFetch, treeForRoot, type TreeState } from '../commands/treeState.js';
import { fitStep, initialView, keepInView, locateView, panBy, scrollIntoView, zoomBy, type Point, type View } from '../commands/viewport.js';
import { ChildLocator } from './childLocator.js';
import { nextCullWindow } from './cullWindow.js';
import { buildLayoutBatch } from './layoutBatch.js';
import type { LayoutRunner } from './layoutRunner.js';
import type { PaneStore } from './paneStore.js';

/** What the viewer passes as PaneOptions.shadePrefetchMax: 50 requests of 400 summaries at most per split group. */
export const SHADE_PREFETCH_MAX = 20_000;
/** Groups with dataflow edges up to this many children are drawn whole (see wholeDataflowGroup). */
export const DATAFLOW_GROUP_MAX = 2_000;

/** A slice of a group's children (`GET /api/graph/children?offset&limit`). */
export interface PageRequest {
  offset: number;
  limit: number;
}

/**
 * Children of one node. A server that pages answers `{children, total}`; one that does not (or a test double)
 * answers every child, as an array or without `total`, and the pane slices them itself.
 */
export type FetchChildren = (
  side: Side,
  nodeId: string,
  page?: PageRequest,
) => Promise<NodeSummary[] | ({ children: NodeSummary[]; total?: number } & Pick<ChildrenResponse, 'edges' | 'dataflowSkipped'>)>;

export interface PaneOptions {
  /** More children than this are drawn as pseudo-groups (core/layout/groupSplit). */
  splitThreshold?: number;
  /** Page size when searching a split group for a node whose position is unknown. */
  scanPage?: number;
  /** Split groups up to this many children have every slice fetched in the background to shade it; 0 = none. */
  shadePrefetchMax?: number;
}

/**
 * The engines behind one pane (tldraw's managers): a children loader and a layout scheduler that react to the tree
 * commands, and the viewport that everything else moves through. React components only dispatch to it and render.
 *
 * Stale work is dropped by generation: a file change bumps it, and answers that arrive for an older generation are
 * ignored. Layout batches run one at a time; changes made meanwhile form the next batch.
 */
export class PaneController {
  private generation = 0;
  private fetcher: FetchChildren;
  private applyView: ((view: View) => void) | null = null;
  private unsubscribe: () => void;
  readonly splitThreshold: number;
  private readonly shadePrefetchMax: number;
  private readonly locator: ChildLocator;
  /** Reveals still resolving positions in split groups; a newer reveal supersedes older ones. */
  private revealSeq = 0;
  private revealsRunning = 0;

  constructor(
    readonly store: PaneStore,
    fetcher: FetchChildren,
    private readonly runner: LayoutRunner,
    readonly measure: TextMeasurer,
    readonly params: LayoutParams = DEFAULT_LAYOUT_PARAMS,
    options: PaneOptions = {},
  ) {
    this.fetcher = fetcher;
    this.splitThreshold = options.splitThreshold ?? SPLIT_THRESHOLD;
    this.shadePrefetchMax = options.shadePrefetchMax ?? 0;
    this.locator = new ChildLocator((id, offset, limit) => this.fetchPage(id, { offset, limit }), options.scanPage);
    this.unsubscribe = store.subscribe((state, previous) => {
      if (state.tree !== previous.tree) this.reconcile();
    });
  }

  get side(): Side {
    return this.store.getState().side;
  }

  setFetcher(fetcher: FetchChildren): void {
    this.fetcher = fetcher;
  }

  dispose(): void {
    this.generation++;
    this.unsubscribe();
    this.runner.dispose();
  }

  /** Opens a file (or a new micro step of it): everything cached for the previous one is dropped. */
  reset(rootId: string | null): void {
    this.generation++;
    this.locator.clear();
    this.store.setState({
      tree: treeForRoot(rootId),
      layouts: new Map(),
      layoutBusy: false,
      scrollTarget: null,
      viewReady: false,
      error: null,
      menu: null,
    });
  }

  // ── tree commands ────────────────────────────────────────────────────────────────────────────────────────────

  updateTree(command: (tree: TreeState) => TreeState): void {
    const tree = this.store.getState().tree;
    const next = command(tree);
    if (next !== tree) this.store.setState({ tree: next });
  }

  toggle(id: string): void {
    this.updateTree((tree) => toggle(tree, id));
  }

  /**
   * Opens `id` itself and its ancestors on `path` (real ids, root first), resolving split groups as reveal does,
   * without moving the view: the other side's half of a sync-expand or of "Expand counterpart".
   */
  openNode(path: readonly string[], id: string): Promise<boolean> {
    // Not sequenced like reveal: each open finishes (a file change still stops it), and none cancels a reveal.
    const generation = this.generation;
    this.revealsRunning++;
    const done = (ok: boolean) => {
      this.revealsRunning--;
      this.settleScrollTarget();
      return ok;
    };
    return this.openPath([...path, id], [], () => true, generation, true).then(done, (error: unknown) => {
      if (generation === this.generation) this.store.setState({ error: `${id}: ${errorText(error)}` });
      return done(false);
    });
  }

  /** Closes `id` and everything open below it (nothing happens when it is not open). */
  closeNode(id: string): void {
    this.updateTree((tree) => collapse(tree, id));
  }

  /**
   * Opens the ancestors on `path` (real ids, root first) and scrolls `target` into view once it is drawn
   * (selection, deep links, search results). Inside split groups the pseudo-groups holding the target are opened
   * too: `positions` (a link's `pos=`) says which, else the group's children are searched. Resolves whether every
   * ancestor could be opened.
   */
  reveal(path: readonly string[], target: string, positions: readonly number[] = [], mode: 'visible' | 'locate' | 'stay' = 'visible'): Promise<boolean> {
    // 'stay': the node was clicked where it is drawn; moving the view between the clicks would break a double click.
    if (mode !== 'stay') this.store.setState({ scrollTarget: target, scrollMode: mode });
    const seq = ++this.revealSeq;
    const generation = this.generation;
    this.revealsRunning++;
    const done = (ok: boolean) => {
      this.revealsRunning--;
      const state = this.store.getState();
      if (!ok && seq === this.revealSeq && state.scrollTarget === target) this.store.setState({ scrollTarget: null });
      this.settleScrollTarget();
      return ok;
    };
    return this.openPath([...path, target], positions, () => seq === this.revealSeq, generation).then(done, (error: unknown) => {
      if (generation === this.generation) this.store.setState({ error: `${target}: ${errorText(error)}` });
      return done(false);
    });
  }

  /** One pass per change of the tree: open what is known, place the target's next ancestor in a split group. */
  private async openPath(
    chain: readonly string[],
    positions: readonly number[],
    alive: () => boolean,
    generation: number,
    includeTarget = false,
  ): Promise<boolean> {
    let openedBefore = 0;
    for (;;) {
      if (generation !== this.generation || !alive()) return false;
      const { full, unresolved } = splitPath(this.store.getState().tree, chain);
      const opened = unresolved || includeTarget ? full : full.slice(0, -1);
      // Only a longer path is opened again: re-opening would also retry a group whose fetch just failed, forever.
      if (opened.length > openedBefore || openedBefore === 0) this.updateTree((tree) => reveal(tree, opened));
      openedBefore = opened.length;
      const tree = this.store.getState().tree;
      if (unresolved) {
        const total = tree.totals.get(unresolved.parent)!;
        const index = await this.locator.indexOf(unresolved.parent, unresolved.child, total, positions[unresolved.ordinal]);
        if (generation !== this.generation || index === null) return false;
        this.updateTree((t) => placeChild(t, unresolved.parent, unresolved.child, index, this.splitThreshold));
        continue;
      }
      const blocked = opened.find((id) => !tree.children.has(id));
      if (blocked === undefined) return true;
      if (tree.failed.has(blocked) || !(tree.pending.has(blocked) || tree.loading.has(blocked))) return false;
      await this.treeChanged();
    }
  }

  private treeChanged(): Promise<void> {
    return new Promise((resolve) => {
      const stop = this.store.subscribe((state, previous) => {
        if (state.tree === previous.tree) return;
        stop();
        resolve();
      });
    });
  }

  // ── viewport ─────────────────────────────────────────────────────────────────────────────────────────────────

  /** The pane's zoom behaviour registers here; views set through it keep d3-zoom's own state in step. */
  attachViewport(apply: ((view: View) => void) | null): void {
    this.applyView = apply;
  }

  /** Called by the zoom behaviour for every transform change (drag, wheel, programmatic). */
  viewChanged(view: View): void {
    const { cullWindow, size } = this.store.getState();
    this.store.setState({ view, cullWindow: nextCullWindow(cullWindow, view, size) });
  }

  resized(width: number, height: number): void {
    const { view, cullWindow } = this.store.getState();
    const size = { width, height };
    this.store.setState({ size, cullWindow: nextCullWindow(cullWindow, view, size) });
    if (!this.store.getState().viewReady) this.settleInitialView();
  }

  setView(view: View): void {
    const next = this.constrain(view);
    if (this.applyView) this.applyView(next);
    else this.viewChanged(next);
  }

  /** Every view, programmatic or from a gesture, keeps part of the graph on screen (see keepInView). */
  constrain(view: View): View {
    const { layouts, tree, size } = this.store.getState();
    const bounds = tree.rootId === null ? null : sceneBounds(layouts, tree.rootId);
    return bounds && size.width > 0 && size.height > 0 ? keepInView(view, bounds, size) : view;
  }

  zoomBy(factor: number, anchor?: Point): void {
    const { view, size } = this.store.getState();
    this.setView(zoomBy(view, factor, anchor ?? { x: size.width / 2, y: size.height / 2 }));
  }

  panBy(dx: number, dy: number): void {
    this.setView(panBy(this.store.getState().view, dx, dy));
  }

  /** Fit button: the width at a readable scale first, the whole graph when pressed again (viewport.fitStep). */
  fit(): void {
    const { layouts, tree, size, view } = this.store.getState();
    const bounds = tree.rootId === null ? null : sceneBounds(layouts, tree.rootId);
    if (bounds && size.width > 0) this.setView(fitStep(view, bounds, size));
  }

  // ── managers ─────────────────────────────────────────────────────────────────────────────────────────────────

  private reconcile(): void {
    this.startFetches();
    this.scheduleLayout();
  }

  private startFetches(): void {
    const { tree } = this.store.getState();
    const ids = childrenToFetch(tree);
    if (ids.length === 0) return;
    this.store.setState({ tree: fetchStarted(tree, ids) });
    const generation = this.generation;
    for (const id of ids) {
      // A pseudo-group asks its real group for its slice; a real group asks for a first page that tells the total.
      const range = parseSplitId(id);
      const request = range
        ? this.fetchPage(range.parentId, { offset: range.lo, limit: range.hi - range.lo })
        : this.fetchPage(id, { offset: 0, limit: this.firstPageSize(tree, id) }).then((first) => this.wholeDataflowGroup(id, first));
      request.then(
        (page) => {
          if (generation !== this.generation) return;
          // A dataflow group loaded whole is laid out whole: its edges join children of every slice.
          const threshold = page.edges?.length && page.children.length === page.total ? Math.max(this.splitThreshold, page.total) : this.splitThreshold;
          this.updateTree((t) => pageLoaded(t, id, page, threshold));
          if (!range && page.total > threshold) void this.prefetchSlices(id, page.total, generation);
        },
        (error: unknown) => {
          if (generation !== this.generation) return;
          const message = errorText(error);
          this.store.setState({ error: `${range ? range.parentId : id}: ${message}` });
          this.updateTree((t) => fetchFailed(t, id, message));
          this.settleScrollTarget();
        },
      );
    }
  }

  /**
   * Pseudo-groups are painted with their worst child (issue 14 item 8), so the slices the first page did not cover
   * are fetched in the background, one request at a time, for groups of up to `shadePrefetchMax` children; larger
   * ones show "not loaded" until opened. A slice fetched here needs no request when it is opened.
   */
  private async prefetchSlices(groupId: string, total: number, generation: number): Promise<void> {
    if (total > this.shadePrefetchMax) return;
    for (const slice of unloadedSlices(this.store.getState().tree, groupId)) {
      const range = parseSplitId(slice)!;
      if (generation !== this.generation) return;
      if (this.store.getState().tree.children.has(slice) || this.store.getState().tree.loading.has(slice)) continue;
      let page: ChildrenPage;
      try {
        page = await this.fetchPage(groupId, { offset: range.lo, limit: range.hi - range.lo });
      } catch {
        return; // Only the shade is missing; opening the slice fetches it again and reports a failure.
      }
      if (generation !== this.generation) return;
      this.updateTree((t) => (t.children.has(slice) ? t : pageLoaded(t, slice, page, this.splitThreshold)));
    }
  }

  /**
   * Inside a graph with dataflow (the parent's children came with edges) a group of up to DATAFLOW_GROUP_MAX children
   * is asked for whole at once: it will be drawn whole, and one request saves a round trip on every expand.
   */
  private firstPageSize(tree: TreeState, id: string): number {
    const parent = tree.parentOf.get(id);
    const count = tree.nodes.get(id)?.childCount ?? 0;
    const dataflow = parent !== undefined && tree.edges.has(parent);
    return dataflow && count > this.splitThreshold && count <= DATAFLOW_GROUP_MAX ? count : this.splitThreshold;
  }

  /**
   * A group with recorded edges and up to DATAFLOW_GROUP_MAX children is fetched whole, not drawn as pseudo-groups:
   * slices would cut its dataflow, and the edge layout places a scope of that size within an expand's budget.
   */
  private async wholeDataflowGroup(id: string, first: ChildrenPage): Promise<ChildrenPage> {
    if (!first.edges?.length || first.total <= this.splitThreshold || first.total > DATAFLOW_GROUP_MAX) return first;
    if (first.offset !== 0 || first.children.length >= first.total) return first;
    const rest = await this.fetchPage(id, { offset: first.children.length, limit: first.total - first.children.length });
    const children = [...first.children, ...rest.children];
    return children.length === first.total ? { ...first, children } : first;
  }

  private async fetchPage(nodeId: string, page: PageRequest): Promise<ChildrenPage> {
    const answer = await this.fetcher(this.side, nodeId, page);
    const children = Array.isArray(answer) ? answer : answer.children;
    const total = Array.isArray(answer) ? undefined : answer.total;
    const edges = Array.isArray(answer) ? undefined : answer.edges;
    const skipped = Array.isArray(answer) ? undefined : answer.dataflowSkipped?.limit;
    // No total: the server ignored offset/limit and sent every child.
    const placed: ChildrenPage = total === undefined ? { offset: 0, children, total: children.length } : { offset: page.offset, children, total };
    return { ...placed, ...(edges ? { edges } : {}), ...(skipped !== undefined ? { dataflowSkipped: skipped } : {}) };
  }

  private scheduleLayout(): void {
    const state = this.store.getState();
    if (state.layoutBusy || state.tree.dirty.size === 0) return;
    const batch = buildLayoutBatch(state.tree, state.layouts, this.measure, this.params);
    this.store.setState({ tree: { ...state.tree, dirty: new Set() }, layoutBusy: batch.length > 0 });
    if (batch.length === 0) return;
    const generation = this.generation;
    this.runner.run(batch, this.params).then(
      (layouts) => {
        if (generation === this.generation) this.commit(layouts);
      },
      (error: unknown) => {
        if (generation !== this.generation) return;
        this.store.setState({ layoutBusy: false, error: error instanceof Error ? error.message : String(error) });
      },
    );
  }

  private commit(results: readonly GroupLayout[]): void {
    const { tree, layouts } = this.store.getState();
    const next = new Map(layouts);
    for (const layout of results) next.set(layout.id, layout);
    // Groups closed while the batch ran are dropped here, not at collapse time, so the picture stays consistent.
    for (const id of next.keys()) if (!tree.expanded.has(id)) next.delete(id);
    this.store.setState({ layouts: next, layoutBusy: false });
    if (!this.store.getState().viewReady) this.settleInitialView();
    this.settleScrollTarget();
    this.scheduleLayout();
  }

  private settleInitialView(): void {
    const { layouts, tree, size } = this.store.getState();
    const bounds = tree.rootId === null ? null : sceneBounds(layouts, tree.rootId);
    if (!bounds || size.width === 0 || size.height === 0) return;
    this.store.setState({ viewReady: true });
    this.setView(initialView(bounds, size));
  }

  /**
   * Brings the reveal target into view once it is drawn. While its ancestors are still loading or being laid out
   * the target waits; when nothing is left in flight and it is still not drawn (filtered out by the micro step,
   * unknown id), it is dropped.
   */
  private settleScrollTarget(): void {
    const { scrollTarget, scrollMode, layouts, tree, size, view, layoutBusy, viewReady } = this.store.getState();
    if (scrollTarget === null || tree.rootId === null) return;
    const box = locate(layouts, tree.parentOf, tree.rootId, scrollTarget);
    const settling =
      layoutBusy || this.revealsRunning > 0 || tree.dirty.size > 0 || tree.loading.size > 0 || childrenToFetch(tree).length > 0;
    if (box && viewReady && !settling) {
      this.store.setState({ scrollTarget: null });
      // A locate (search, filter, worst nodes, link) centres the node at a readable zoom (issue 14 item 7).
      const next = scrollMode === 'locate' ? locateView(view, box, size) : scrollIntoView(view, box, size);
      if (next !== view) this.setView(next);
    } else if (!box && !settling) {
      this.store.setState({ scrollTarget: null });
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
