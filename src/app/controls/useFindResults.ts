import { useCallback, useEffect, useRef, useState } from 'react';
import type { FindResponse, FoundNode, Side } from '../../core/api/types.js';
import type { GraphRef } from '../api/client.js';
import { currentGraph, describeError, selectFound } from '../state/actions.js';
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
}

const IDLE: FindState = { status: 'idle', side: 'npu', total: 0, results: [], exec: [], at: -1, order: 'exec' };

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
        setState({ status: 'done', side, total: answer.total, results, exec: answer.results, at: -1, order: order.current });
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
      setState((s) => ({ ...s, at }));
      selectFound(state.side, found);
    },
    [state],
  );

  return { state, query, clear, pick, setOrder };
}
