import type { GroupChild, LayoutParams } from './types.js';

/**
 * The packing step of a group layout: consecutive leaves share rows of up to `maxPerRow` (left to right), every
 * module gets a row of its own. Each item becomes one node of the group's dagre chain.
 *
 * Issue 4 (groups of more than ~400 children) slots in before this step: it replaces runs of children by synthetic
 * sub-groups, which then pack here like modules.
 */
export interface LayoutItem {
  /** Indexes into the group's children, in execution order. */
  members: number[];
  kind: 'row' | 'module';
  width: number;
  height: number;
}

export function packItems(children: readonly GroupChild[], params: LayoutParams): LayoutItem[] {
  const items: LayoutItem[] = [];
  let row: LayoutItem | null = null;
  children.forEach((child, index) => {
    if (child.shape === 'module') {
      row = null;
      items.push({ members: [index], kind: 'module', width: child.width, height: child.height });
      return;
    }
    if (!row || row.members.length >= params.maxPerRow) {
      row = { members: [], kind: 'row', width: -params.hGap, height: 0 };
      items.push(row);
    }
    row.members.push(index);
    row.width += params.hGap + child.width;
    row.height = Math.max(row.height, child.height);
  });
  return items;
}
