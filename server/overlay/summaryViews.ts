import { randomBytes } from 'node:crypto';
import type { OverlaySummariesResponse } from '../../src/core/api/overlay.js';
import type { NodeSummary, Side } from '../../src/core/api/types.js';
import type { GraphStore } from '../store/graphStore.js';
import { checkBudget } from '../store/workBudget.js';
import type { MetricCellTable } from './metricCells.js';
import type { OverlayTarget } from './overlayEntry.js';
import { OverlayStore } from './overlayStore.js';

/** Views kept, and their ids in all (least recently used dropped first): a few panes of a few users. */
const MAX_VIEWS = 64;
const MAX_IDS = 2_000_000;

/**
 * The ids a pane holds, sent once to `POST /api/overlay/summaries` and named by a key after that
 * (src/core/api/overlay.ts): a recolour then sends the key, and the server answers from what it resolved the first
 * time — the file's summaries of those ids (they do not change while the file version stays) and their slots in the
 * metric cells (metricCells.ts) — without parsing, hashing or looking up 10^5 ids again.
 */
export class SummaryView {
  /** Entry k: the file's summary of ids[k], undefined when the side does not hold it (`missing`). */
  private base: Array<NodeSummary | undefined> | null = null;
  private missing: number[] = [];
  /** Slots in `table` by position, -1 until known. */
  private slots: { table: MetricCellTable; at: Int32Array } | null = null;

  constructor(
    readonly key: string,
    readonly scope: string,
    readonly side: Side,
    readonly ids: readonly string[],
  ) {}

  /** The answer for these ids under `store` (the file's, or an overlay's: the fields as `/children` would give them). */
  answer(store: GraphStore, step: number, rank: number, fields: 'all' | 'precision'): OverlaySummariesResponse {
    const side = this.side;
    const base = (this.base ??= this.resolve(store instanceof OverlayStore ? store.base : store, step, rank));
    const entry = store instanceof OverlayStore && store.entry.changes(side) ? store.entry : null;
    const n = this.ids.length;
    // Filled by push: packed arrays, which JSON.stringify writes on its fast path (holey ones take the slow one).
    const precisionIndex: Array<number | null> = [];
    const all = fields === 'all';
    const overflowLevel: Array<NodeSummary['overflowLevel']> = [];
    const matchedNodeLink: Array<NodeSummary['matchedNodeLink']> = [];
    const table = entry?.metricTable() ?? null;
    const at = table ? this.slotsIn(table, n) : null;
    if (entry && at) {
      // The matched nodes' cells, read a slice per request (202 meanwhile) as OverlayStore.summaries does.
      const unread: string[] = [];
      for (let k = 0; k < n; k++) {
        const s = base[k];
        if (at[k] < 0 && s && !s.synthetic && entry.linkOf(side, s).length > 0) unread.push(s.id);
      }
      if (unread.length > 0) entry.prepareMetrics(unread);
    }
    for (let k = 0; k < n; k++) {
      if ((k & 0xfff) === 0) checkBudget();
      const s = base[k];
      if (s === undefined || s.synthetic) {
        precisionIndex.push(null);
        if (all) {
          overflowLevel.push(null);
          matchedNodeLink.push([]);
        }
        continue;
      }
      if (!entry) precisionIndex.push(s.precisionIndex);
      else {
        let slot = -1;
        if (at) {
          if (at[k] < 0 && entry.linkOf(side, s).length > 0) at[k] = table!.slotOf(s.id);
          slot = at[k];
        }
        precisionIndex.push(entry.precisionOf(side, s, slot));
      }
      if (all) {
        overflowLevel.push(s.overflowLevel);
        // Only serialised: the change's own list is not copied.
        matchedNodeLink.push(entry ? (entry.linkOf(side, s) as string[]) : s.matchedNodeLink);
      }
    }
    return { view: this.key, missing: this.missing, precisionIndex, ...(all ? { overflowLevel, matchedNodeLink } : {}) };
  }

  private resolve(store: GraphStore, step: number, rank: number): Array<NodeSummary | undefined> {
    const found = store.summaries({ side: this.side, ids: this.ids, step, rank });
    this.missing = [];
    found.forEach((s, k) => {
      if (s === undefined || s.synthetic) this.missing.push(k);
    });
    return found;
  }

  private slotsIn(table: MetricCellTable, n: number): Int32Array {
    if (this.slots?.table !== table) this.slots = { table, at: new Int32Array(n).fill(-1) };
    return this.slots.at;
  }
}

/** The views of one server, least recently used dropped first past MAX_VIEWS views or MAX_IDS ids. */
export class SummaryViews {
  private readonly views = new Map<string, SummaryView>();
  private ids = 0;

  /** A new view of `ids` on `side` of the target's graph. */
  create(target: OverlayTarget, side: Side, ids: readonly string[]): SummaryView {
    const view = new SummaryView(randomBytes(12).toString('base64url'), scopeOf(target), side, ids);
    this.views.set(view.key, view);
    this.ids += ids.length;
    for (const [key, old] of this.views) {
      if (this.views.size <= 1 || (this.views.size <= MAX_VIEWS && this.ids <= MAX_IDS)) break;
      this.views.delete(key);
      this.ids -= old.ids.length;
    }
    return view;
  }

  /** The view `key` names, when it belongs to this file version, graph and side; else undefined (409 `viewUnknown`). */
  get(key: string, target: OverlayTarget, side: Side): SummaryView | undefined {
    const view = this.views.get(key);
    if (!view || view.scope !== scopeOf(target) || view.side !== side) return undefined;
    this.views.delete(key);
    this.views.set(key, view);
    return view;
  }
}

/** A view answers for one file version and graph: a changed file makes its keys unknown. */
function scopeOf(t: OverlayTarget): string {
  return JSON.stringify([t.absPath, t.stamp, t.step, t.rank]);
}
