import { useCallback, useEffect, useRef, useState } from 'react';
import type { FindResponse, FoundNode, Side } from '../../core/api/types.js';
import { client, type GraphRef } from '../api/client.js';
import { nearestMatchedAncestor } from '../commands/locate.js';
import { paneFor, syncStore } from '../pane/paneRegistry.js';
import { currentGraph, describeError, otherSide, selectFound } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';
import { sortFound, type FoundOrder } from './foundRows.js';

/** A search or filter answer and the result the user stepped to (-1 = none yet). */
export interface FindState {
  status: 'idle' | 'busy' | 'done';
  side: Side;
  total: number;
  /** In the chosen order (what the list shows and `at` indexes). */
  results: FoundNode[];
  /** The server's (execution) order. */
  exec: FoundNode[];
  at: number;
  order: FoundOrder;
  /** The current result is unmatched: this matched ancestor's counterpart was located instead (null: none). */
  nearestAncestor: string | null;
}

const IDLE: FindState = { status: 'idle', side: 'npu', total: 0, results: [], exec: [], at: -1, order: 'exec', nearestAncestor: null };

const lowerIsWorse = () => useAppStore.getState().meta?.task === 'md5';

/**
 * Runs search / filter queries for a sidebar panel: a newer query aborts the older one, another file or step
 * clears the list, and picking a result selects it (the panes then reveal it, through split groups too).
 */
export function useFindResults() {
  const [state, setState] = useState<FindState>(IDLE);
  const order = useRef<FoundOrder>('exec');
  const inFlight = useRef<AbortController | null>(null);
  const fileKey = useAppStore((s) => `${s.fileVersion}|${s.run}|${s.tag}|${s.step}|${s.rank}`);

  useEffect(() => {
    inFlight.current?.abort();
    setState({ ...IDLE, order: order.current });
  }, [fileKey]);
  useEffect(() => () => inFlight.current?.abort(), []);

  const query = useCallback((side: Side, ask: (ref: GraphRef, signal: AbortSignal) => Promise<FindResponse>) => {
    const ref = currentGraph();
    inFlight.current?.abort();
    if (!ref) return;
    const controller = new AbortController();
    inFlight.current = controller;
    setState({ ...IDLE, status: 'busy', side, order: order.current });
    ask(ref, controller.signal).then(
      (answer) => {
        if (controller.signal.aborted) return;
        const results = sortFound(answer.results, order.current, lowerIsWorse());
        setState({ status: 'done', side, total: answer.total, results, exec: answer.results, at: -1, order: order.current, nearestAncestor: null });
      },
      (err: unknown) => {
        if (controller.signal.aborted || (err as Error)?.name === 'AbortError') return;
        setState({ ...IDLE, order: order.current });
        useAppStore.getState().setError(describeError(err));
      },
    );
  }, []);

  const clear = useCallback(() => {
    inFlight.current?.abort();
    setState({ ...IDLE, order: order.current });
  }, []);

  /** Re-orders the list; the result the user stepped to stays current. */
  const setOrder = useCallback((next: FoundOrder) => {
    order.current = next;
    setState((s) => {
      const results = sortFound(s.exec, next, lowerIsWorse());
      const current = s.results[s.at];
      return { ...s, order: next, results, at: current ? results.indexOf(current) : -1 };
    });
  }, []);

  const pick = useCallback(
    (at: number) => {
      const found = state.results[at];
      if (!found) return;
      setState((s) => ({ ...s, at, nearestAncestor: null }));
      selectFound(state.side, found);
      void locateNearestMatched(state.side, found).then((ancestor) => {
        if (ancestor !== null) setState((s) => (s.results[s.at] === found ? { ...s, nearestAncestor: ancestor } : s));
      });
    },
    [state],
  );

  return { state, query, clear, pick, setOrder };
}

/** Ancestors read at most this far up for a matched one; past it the other side's root stands in. */
const MAX_ANCESTOR_READS = 32;

/**
 * Locate's sync half for an unmatched result of a compare file (sync on): its nearest matched ancestor's counterpart
 * is located on the other side. Resolves that ancestor's id, or null when the result is matched (the panes locate its
 * counterpart from the selection), sync is off, or the file or selection changed meanwhile.
 */
export async function locateNearestMatched(side: Side, found: Pick<FoundNode, 'id' | 'path' | 'matchedNodeLink'>): Promise<string | null> {
  const app = useAppStore.getState();
  const ref = currentGraph();
  const otherRoot = app.meta?.roots[otherSide(side)];
  if (!ref || app.meta?.graphType !== 'compare' || !otherRoot || !syncStore.getState().sync) return null;
  if (found.matchedNodeLink.length > 0 || found.path.length === 0) return null;
  const version = app.fileVersion;
  const read: Array<{ id: string; matchedNodeLink: string[] }> = [];
  try {
    // Nearest first; the root (path[0]) always has a counterpart, so reading stops there at the latest.
    for (let k = found.path.length - 1; k >= 1 && read.length < MAX_ANCESTOR_READS; k--) {
      const node = await client.node(ref, side, found.path[k]);
      read.unshift({ id: node.id, matchedNodeLink: node.matchedNodeLink });
      if (node.matchedNodeLink.length > 0) break;
    }
  } catch (err) {
    useAppStore.getState().setError(describeError(err));
    return null;
  }
  const chain = read[0]?.matchedNodeLink.length ? read : [{ id: found.path[0], matchedNodeLink: [] }, ...read];
  const target = nearestMatchedAncestor(chain, otherRoot);
  const now = useAppStore.getState();
  if (!target || now.fileVersion !== version || now.selection?.id !== found.id) return null;
  void paneFor(otherSide(side))?.reveal(target.path, target.id, [], 'locate');
  return target.ancestorId;
}
