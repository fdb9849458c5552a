import type { GroupInput, GroupLayout, LayoutParams } from '../core/layout/types.js';

/** Messages between a graph pane and its layout worker. One request per batch; `requestId` ties the answer back. */
export interface LayoutRequest {
  type: 'layout';
  requestId: number;
  /** Deepest group first (see layoutGroups). */
  groups: GroupInput[];
  params: LayoutParams;
}

export type LayoutResponse =
  | { type: 'layout'; requestId: number; layouts: GroupLayout[]; millis: number }
  | { type: 'error'; requestId: number; message: string };
