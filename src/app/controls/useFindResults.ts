import { useCallback, useEffect, useRef, useState } from 'react';
import type { FindResponse, FoundNode, Side } from '../../core/api/types.js';
import type { GraphRef } from '../api/client.js';
import { currentGraph, describeError, selectFound } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';

/** A search or filter answer and the result the user stepped to (-1 = none yet). */
export interface FindState {
  status: 'idle' | 'busy' | 'done';
  side: Side;
  total: number;
  results: FoundNode[];
  at: number;
}

const IDLE: FindState = { status: 'idle', side: 'npu', total: 0, results: [], at: -1 };

/**
 * Runs search / filter queries for a sidebar panel: a newer query aborts the older one, another file or step
 * clears the list, and picking a result selects it (the panes then reveal it, through split groups too).
 */
export function useFindResults() {
  const [state, setState] = useState<FindState>(IDLE);
  const inFlight = useRef<AbortController | null>(null);
  const fileKey = useAppStore((s) => `${s.fileVersion}|${s.run}|${s.tag}|${s.step}|${s.rank}`);

  useEffect(() => {
    inFlight.current?.abort();
    setState(IDLE);
  }, [fileKey]);
  useEffect(() => () => inFlight.current?.abort(), []);

  const query = useCallback((side: Side, ask: (ref: GraphRef, signal: AbortSignal) => Promise<FindResponse>) => {
    const ref = currentGraph();
    inFlight.current?.abort();
    if (!ref) return;
    const controller = new AbortController();
    inFlight.current = controller;
    setState({ ...IDLE, status: 'busy', side });
    ask(ref, controller.signal).then(
      (answer) => {
        if (controller.signal.aborted) return;
        setState({ status: 'done', side, total: answer.total, results: answer.results, at: -1 });
      },
      (err: unknown) => {
        if (controller.signal.aborted || (err as Error)?.name === 'AbortError') return;
        setState(IDLE);
        useAppStore.getState().setError(describeError(err));
      },
    );
  }, []);

  const clear = useCallback(() => {
    inFlight.current?.abort();
    setState(IDLE);
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

  return { state, query, clear, pick };
}
