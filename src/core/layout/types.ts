/**
 * Data shapes of the nested layout. A group is one expanded node; its layout places only its direct children,
 * relative to the group's own top-left corner, so a group's layout stays valid while the rest of the tree changes
 * (style.md "Layout per group, cached").
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How a child is drawn and packed: leaves share rows, modules (collapsed or expanded) take a row of their own. */
export type ChildShape = 'leaf' | 'module';

export interface GroupChild {
  id: string;
  shape: ChildShape;
  /** Size of the child's box: its collapsed size, or its own group size when it is expanded. */
  width: number;
  height: number;
  /**
   * True when the child is itself an expanded group. When that group is laid out earlier in the same batch, the
   * batch replaces width/height with the fresh size (see layoutGroups).
   */
  expanded: boolean;
}

/** A bundle of dataflow edges between two children of one group, by index into `GroupInput.children`. */
export interface GroupEdge {
  from: number;
  to: number;
  /** Data edges bundled here. */
  data: number;
  /** Control dependencies bundled here (drawn dashed). */
  control: number;
  /** Up to 3 distinct dtype[shape] labels of the data edges. */
  labels: readonly string[];
  /**
   * Inferred from matching fingerprints (msprobe graphs): drawn over the group's usual layout instead of placing the
   * children, so the familiar execution-order picture stays.
   */
  inferred?: boolean;
}

export interface GroupInput {
  id: string;
  /** Width of the container's title text; the container is at least this wide. */
  titleWidth: number;
  /** Children in execution order. */
  children: GroupChild[];
  /** Dataflow among the children; recorded edges (TensorBoard graphs) place the children in layers. */
  edges?: GroupEdge[];
}

export interface Point {
  x: number;
  y: number;
}

/** An edge bundle as drawn: a polyline relative to the group's top-left, first point on the source's box. */
export interface PlacedEdge {
  from: string;
  to: string;
  points: Point[];
  data: number;
  control: number;
  labels: readonly string[];
  inferred?: boolean;
}

export interface PlacedChild extends Rect {
  id: string;
  shape: ChildShape;
  expanded: boolean;
}

export interface GroupLayout {
  id: string;
  width: number;
  height: number;
  /** Same order as the input children (execution order); x/y relative to the group's top-left. */
  children: PlacedChild[];
  /** Dataflow edges drawn inside the group, when the input had any. */
  edges?: PlacedEdge[];
}

export interface LayoutParams {
  leafWidth: number;
  leafHeight: number;
  /** Collapsed module height; its width follows its label. */
  moduleHeight: number;
  moduleMinWidth: number;
  moduleMaxWidth: number;
  /** Horizontal room around a collapsed module's label. */
  labelPadding: number;
  hGap: number;
  vGap: number;
  maxPerRow: number;
  titleHeight: number;
  padX: number;
  padTop: number;
  padBottom: number;
  moduleFontSize: number;
  leafFontSize: number;
  /**
   * Above this many packed items a group is stacked directly instead of through dagre. Today every group is a pure
   * chain, for which stacking gives dagre's geometry exactly (test/unit/layout.test.ts) at a fraction of the cost:
   * dagre needs ~40 ms for 100 items and ~320 ms for 400 (what a split level can hold), which an expand would pay
   * for every ancestor on its chain; at thousands of items dagre overflows the stack (peers.md §6.3).
   */
  dagreMaxItems: number;
  /**
   * Above this many children a dataflow group is placed by the linear layered pass (edgeLayout.ts) instead of dagre,
   * whose cost grows far faster than linearly with the children and long edges of one flat scope.
   */
  edgeDagreMax: number;
  /** Vertical room between layers of a dataflow group, where edges and their labels run. */
  edgeRankGap: number;
}

/** The reference viewer's constants (reference-viewer.md §4.3), so a graph keeps its familiar proportions. */
export const DEFAULT_LAYOUT_PARAMS: LayoutParams = {
  leafWidth: 50,
  leafHeight: 15,
  moduleHeight: 15,
  moduleMinWidth: 30,
  moduleMaxWidth: 320,
  labelPadding: 10,
  hGap: 5,
  vGap: 10,
  maxPerRow: 5,
  titleHeight: 15,
  padX: 5,
  padTop: 5,
  padBottom: 5,
  moduleFontSize: 8,
  leafFontSize: 6,
  dagreMaxItems: 100,
  edgeDagreMax: 60,
  edgeRankGap: 24,
};
