import { contains, type LayoutLookup, visibleNodes } from '../../src/core/layout/scene.js';
import type { GroupLayout, Rect } from '../../src/core/layout/types.js';

/** Float slack for dagre's half-pixel centres. */
const EPS = 1e-6;

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width - EPS && b.x < a.x + a.width - EPS && a.y < b.y + b.height - EPS && b.y < a.y + a.height - EPS;
}

/**
 * The three layout invariants of issue 2, checked on one group's children (relative coordinates). Returns problems
 * as text so a failing test names the group and the pair.
 */
export function groupProblems(group: GroupLayout): string[] {
  const problems: string[] = [];
  const frame = { x: 0, y: 0, width: group.width, height: group.height };
  group.children.forEach((child, i) => {
    if (!contains(frame, { x: child.x + EPS, y: child.y + EPS, width: child.width - 2 * EPS, height: child.height - 2 * EPS }))
      problems.push(`${group.id}: child ${child.id} leaves its parent`);
    if (i === 0) return;
    const prev = group.children[i - 1];
    const below = child.y >= prev.y + prev.height - EPS;
    const sameRowRight = Math.abs(child.y + child.height / 2 - (prev.y + prev.height / 2)) < EPS && child.x >= prev.x + prev.width - EPS;
    if (!below && !sameRowRight) problems.push(`${group.id}: ${child.id} is not after ${prev.id} in execution order`);
  });
  for (let i = 0; i < group.children.length; i++)
    for (let j = i + 1; j < group.children.length; j++)
      if (overlaps(group.children[i], group.children[j]))
        problems.push(`${group.id}: siblings ${group.children[i].id} and ${group.children[j].id} overlap`);
  return problems;
}

/** Every drawn container checked in absolute coordinates too, which catches a stale child size in a parent. */
export function sceneProblems(layouts: LayoutLookup, rootId: string): string[] {
  const problems: string[] = [];
  for (const group of layouts.values()) problems.push(...groupProblems(group));
  const drawn = visibleNodes(layouts, rootId);
  const byId = new Map(drawn.map((n) => [n.id, n]));
  for (const node of drawn) {
    if (node.parentId === null) continue;
    const parent = byId.get(node.parentId)!;
    if (!contains(parent, { x: node.x + EPS, y: node.y + EPS, width: node.width - 2 * EPS, height: node.height - 2 * EPS }))
      problems.push(`${node.id} is drawn outside ${parent.id}`);
    if (node.container) {
      const own = layouts.get(node.id)!;
      if (Math.abs(own.width - node.width) > EPS || Math.abs(own.height - node.height) > EPS)
        problems.push(`${node.id}: parent slot ${node.width}x${node.height} != group ${own.width}x${own.height}`);
    }
  }
  return problems;
}
