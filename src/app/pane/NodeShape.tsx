import { memo, useMemo } from 'react';
import type { ChildShape } from '../../core/layout/types.js';
import { LABEL_FONT_FAMILY } from './canvasTextMeasurer.js';
import { fitLabel } from './labelFit.js';
import { usePaneController } from './paneContext.js';

/** Dash patterns of the reference viewer: API collections (9) long dashes, fusion collections (8) dots. */
export const DASH_API_COLLECTION = '15,1';
export const DASH_FUSION = '2,1';
/** Pseudo-groups of a split group: neutral, with a loose dash so they read as "a range of children", not a module. */
export const DASH_SPLIT = '4,3';
export const SPLIT_FILL = '#F6F8FA';
export const SPLIT_STROKE = 'rgb(140,149,159)';
const MODULE_RADIUS = 5;
const BADGE_FILL = 'rgb(31,35,40)';
// Inline style: .pb-node text (graphPane.css) would override a fill attribute.
const BADGE_TEXT = '#FFFFFF';

export interface NodeShapeProps {
  id: string;
  side: string;
  x: number;
  y: number;
  width: number;
  height: number;
  shape: ChildShape;
  container: boolean;
  label: string;
  fill: string;
  stroke: string;
  strokeWidth: number;
  dash: string | undefined;
  selected: boolean;
  counterpart: boolean;
  loading: boolean;
  /** Why the children could not be loaded, shown on hover. */
  failure: string | undefined;
  /** Index range of a pseudo-group ("400-799") and the real group it belongs to; its id is not a node id. */
  split?: string;
  splitOf?: string;
  /** Hover text instead of the id (pseudo-groups). */
  hint?: string;
  /** Pseudo-groups: how many children share the worst colour (drawn as a badge when it is an alarming one)… */
  badge?: number;
  /** …and how many children are not loaded yet (the colour may miss a worse one). */
  unknown?: number;
}

/**
 * One node, drawn from primitive props only, so memo skips every node whose box, colour and state did not change:
 * a recolour touches the nodes whose colour changed, an expand the boxes that moved.
 */
export const NodeShape = memo(function NodeShape(props: NodeShapeProps) {
  const { measure, params } = usePaneController();
  const { x, y, width, height, shape, container, fill, stroke, strokeWidth, dash } = props;
  const fontSize = shape === 'leaf' ? params.leafFontSize : params.moduleFontSize;
  const text = useMemo(
    () => fitLabel(props.label, width - (shape === 'leaf' ? 6 : 8), fontSize, measure),
    [props.label, width, shape, fontSize, measure],
  );
  const textY = container ? y + params.titleHeight / 2 : y + height / 2;
  const name = props.hint ?? props.id;
  const title = props.failure ? `${name}\n${props.failure}` : name;
  return (
    <g
      className="pb-node"
      data-node-id={props.id}
      data-side={props.side}
      data-shape={shape}
      data-expanded={container ? 'true' : undefined}
      data-selected={props.selected ? 'true' : undefined}
      data-counterpart={props.counterpart ? 'true' : undefined}
      data-loading={props.loading ? 'true' : undefined}
      data-split={props.split}
      data-split-of={props.splitOf}
      data-worst-count={props.badge}
      data-unknown={props.unknown || undefined}
    >
      <title>{title}</title>
      {shape === 'leaf' ? (
        <ellipse
          cx={x + width / 2}
          cy={y + height / 2}
          rx={width / 2}
          ry={height / 2}
          fill={fill}
          stroke={stroke}
          strokeWidth={strokeWidth}
          strokeDasharray={dash}
        />
      ) : (
        <rect
          x={x}
          y={y}
          width={width}
          height={height}
          rx={MODULE_RADIUS}
          ry={MODULE_RADIUS}
          fill={fill}
          stroke={stroke}
          strokeWidth={strokeWidth}
          strokeDasharray={dash}
        />
      )}
      <text
        x={x + width / 2}
        y={textY}
        fontSize={fontSize}
        fontFamily={LABEL_FONT_FAMILY}
        textAnchor="middle"
        dominantBaseline="central"
        pointerEvents="none"
      >
        {text}
      </text>
      {props.loading && (
        <circle
          className="pb-node-spinner"
          cx={x + width - 4}
          cy={y + 4}
          r={2.5}
          fill="none"
          stroke="currentColor"
          strokeWidth={1}
          strokeDasharray="8,8"
        />
      )}
      {props.badge !== undefined && <Badge x={x + width} y={y} count={props.badge} />}
      {props.failure && <circle cx={x + width - 4} cy={y + 4} r={2} fill="var(--pb-unmatched, #cf222e)" />}
    </g>
  );
});

/** A count on a box's top-right corner, like a notification badge: readable without opening the range. */
function Badge({ x, y, count }: { x: number; y: number; count: number }) {
  const text = count > 999 ? '999+' : String(count);
  const width = Math.max(10, 4 + text.length * 4.5);
  return (
    <g className="pb-node-badge" pointerEvents="none">
      <rect x={x - width + 3} y={y - 5} width={width} height={10} rx={5} ry={5} fill={BADGE_FILL} />
      <text x={x - width / 2 + 3} y={y} fontSize={7} fontFamily={LABEL_FONT_FAMILY} style={{ fill: BADGE_TEXT }} textAnchor="middle" dominantBaseline="central">
        {text}
      </text>
    </g>
  );
}
