import type { GraphFileFormat } from '../../core/api/types.js';

/**
 * The "Dataflow (inferred)" view flag (issue 16): msprobe files carry no edges, so with it on the children requests
 * ask the server to infer them (`dataflow=1`, src/core/dataflow/inferEdges.ts). TensorBoard-side graphs always come
 * with their real edges: the flag does not apply to them. Pure: state/dataflowActions.ts applies it.
 */

/** Whether the flag means anything for the open file, by its meta's format (undefined = no file open yet). */
export function dataflowApplies(format: GraphFileFormat | undefined): boolean {
  return format === 'vis' || format === 'db';
}

/** The children request's `dataflow` parameter: 1 when the flag is on and applies, else left out. */
export function dataflowParam(on: boolean, format: GraphFileFormat | undefined): 1 | undefined {
  return on && dataflowApplies(format) ? 1 : undefined;
}
