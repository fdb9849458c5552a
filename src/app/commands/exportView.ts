/**
 * A pane's current view (what is on screen: the pane's size, its pan and zoom, the nodes in view with their colours
 * in the theme in effect) as one self-contained SVG document: inline attributes only, no stylesheet, font file, image
 * or link, every name escaped. Pure; ExportMenu collects the snapshot from the page and turns the SVG into a PNG.
 */

export interface ViewNode {
  id: string;
  /** Leaves are ellipses, everything else rounded boxes (NodeShape.tsx). */
  ellipse: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
  radius: number;
  fill: string;
  stroke: string;
  strokeWidth: number;
  dash: string | null;
  /** The label as drawn (already cut to fit), empty when labels are hidden (far zoom). */
  label: string;
  labelX: number;
  labelY: number;
  labelColor: string;
  fontSize: number;
}

export interface ViewSnapshot {
  width: number;
  height: number;
  background: string;
  /** The pan/zoom transform: screen = layout × k + (x, y). */
  view: { x: number; y: number; k: number };
  fontFamily: string;
  /** The document's `<title>`: run, file and side. */
  title: string;
  nodes: readonly ViewNode[];
}

export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`);
}

/** XML 1.0 forbids most control characters even escaped; a name carrying one would make the file unreadable. */
function xmlText(text: string): string {
  return xmlEscape(text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd'));
}

const num = (v: number) => String(Math.round(v * 100) / 100);

function attrs(pairs: Array<[string, string | number | null]>): string {
  return pairs
    .filter(([, v]) => v !== null && v !== '')
    .map(([k, v]) => ` ${k}="${xmlText(typeof v === 'number' ? num(v) : v!)}"`)
    .join('');
}

function nodeSvg(n: ViewNode, fontFamily: string): string {
  const paint: Array<[string, string | number | null]> = [
    ['fill', n.fill],
    ['stroke', n.stroke],
    ['stroke-width', n.strokeWidth],
    ['stroke-dasharray', n.dash],
  ];
  const shape = n.ellipse
    ? `<ellipse${attrs([['cx', n.x + n.width / 2], ['cy', n.y + n.height / 2], ['rx', n.width / 2], ['ry', n.height / 2], ...paint])}/>`
    : `<rect${attrs([['x', n.x], ['y', n.y], ['width', n.width], ['height', n.height], ['rx', n.radius], ['ry', n.radius], ...paint])}/>`;
  const label = n.label
    ? `<text${attrs([
        ['x', n.labelX],
        ['y', n.labelY],
        ['font-size', n.fontSize],
        ['font-family', fontFamily],
        ['text-anchor', 'middle'],
        ['dominant-baseline', 'central'],
        ['fill', n.labelColor],
      ])}>${xmlText(n.label)}</text>`
    : '';
  return `<g${attrs([['data-node-id', n.id]])}><title>${xmlText(n.id)}</title>${shape}${label}</g>`;
}

export function viewSvg(s: ViewSnapshot): string {
  const { x, y, k } = s.view;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg"${attrs([['width', s.width], ['height', s.height], ['viewBox', `0 0 ${num(s.width)} ${num(s.height)}`]])}>`,
    `<title>${xmlText(s.title)}</title>`,
    `<rect${attrs([['width', s.width], ['height', s.height], ['fill', s.background]])}/>`,
    `<g${attrs([['transform', `translate(${num(x)},${num(y)}) scale(${k})`]])}>`,
    ...s.nodes.map((n) => nodeSvg(n, s.fontFamily)),
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}

/** The PNG's pixel size: the view at the device pixel ratio, capped so the canvas stays within browser limits. */
export function pngSize(width: number, height: number, devicePixelRatio: number, maxSide = 16384): { width: number; height: number; scale: number } {
  const ratio = Number.isFinite(devicePixelRatio) && devicePixelRatio > 0 ? devicePixelRatio : 1;
  const scale = Math.min(ratio, maxSide / Math.max(1, width), maxSide / Math.max(1, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), scale };
}
