import type { Side } from '../../core/api/types.js';
import { dataflowApplies } from '../commands/dataflow.js';
import { paneFor } from '../pane/paneRegistry.js';
import { useAppStore } from './appStore.js';
import { paneLink, planView } from './viewPlan.js';

const SIDES: readonly Side[] = ['npu', 'bench'];

/**
 * Turns issue 16's "Dataflow (inferred)" flag on or off. On an msprobe file the panes' groups are asked for again
 * (with or without `dataflow=1`: App's fetcher reads the flag per request) and the open groups and viewport come
 * back as after a step switch; the selection, search results and other panels stay, since the file is the same.
 */
export function setDataflow(on: boolean): void {
  const { dataflow, meta } = useAppStore.getState();
  if (dataflow === on) return;
  useAppStore.setState({ dataflow: on });
  if (!meta || !dataflowApplies(meta.format)) return;
  const panes = { npu: paneLink('npu', Infinity), bench: paneLink('bench', Infinity) };
  for (const side of SIDES) paneFor(side)?.reset(meta.roots[side] ?? null);
  planView(panes);
}
