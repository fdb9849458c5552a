import type { ChildShape, LayoutParams } from './types.js';
import type { TextMeasurer } from './textMeasure.js';

/** A node with no children is a leaf (ellipse) whatever its node_type; everything else packs as a module. */
export function childShape(childCount: number): ChildShape {
  return childCount === 0 ? 'leaf' : 'module';
}

/** Size of a node drawn closed: leaves are fixed, modules grow with their label up to a cap (then "…"). */
export function collapsedSize(
  shape: ChildShape,
  label: string,
  measure: TextMeasurer,
  params: LayoutParams,
): { width: number; height: number } {
  if (shape === 'leaf') return { width: params.leafWidth, height: params.leafHeight };
  const text = measure(label, params.moduleFontSize) + params.labelPadding;
  const width = Math.min(params.moduleMaxWidth, Math.max(params.moduleMinWidth, Math.ceil(text)));
  return { width, height: params.moduleHeight };
}

/** Title text width of an expanded container, capped like a collapsed label so one long name cannot widen a tree. */
export function titleWidth(label: string, measure: TextMeasurer, params: LayoutParams): number {
  return Math.min(params.moduleMaxWidth, Math.ceil(measure(label, params.moduleFontSize) + params.labelPadding));
}
