import type { Side } from '../../core/api/types.js';
import { visibleNodes, intersects } from '../../core/layout/scene.js';
import { exportFileName } from '../commands/exportCsv.js';
import { pngSize, viewSvg, type ViewNode, type ViewSnapshot } from '../commands/exportView.js';
import { viewportRect } from '../commands/viewport.js';
import { useT } from '../i18n/i18n.js';
import { BOX_STROKE, CONTAINER_STROKE, FAR_SCALE } from '../pane/canvasPaint.js';
import { LABEL_FONT_FAMILY } from '../pane/canvasTextMeasurer.js';
import { boxFill } from '../pane/paneFill.js';
import { paneFor } from '../pane/paneRegistry.js';
import { useAppStore } from '../state/appStore.js';
import { themeStore } from '../state/themeStore.js';
import { downloadBlob } from './download.js';

const num = (el: Element, name: string) => Number(el.getAttribute(name) ?? 0);

/** The SVG nodes as drawn (near zoom): geometry from their attributes, colours as computed (theme.css applies). */
function drawnNodes(svg: SVGSVGElement, inView: (r: { x: number; y: number; width: number; height: number }) => boolean): ViewNode[] {
  const out: ViewNode[] = [];
  svg.querySelectorAll<SVGGElement>('g.pb-node').forEach((g) => {
    const shape = g.querySelector(':scope > rect, :scope > ellipse');
    const id = g.getAttribute('data-node-id');
    if (!shape || id === null) return;
    const ellipse = shape.tagName.toLowerCase() === 'ellipse';
    const box = ellipse
      ? { x: num(shape, 'cx') - num(shape, 'rx'), y: num(shape, 'cy') - num(shape, 'ry'), width: 2 * num(shape, 'rx'), height: 2 * num(shape, 'ry') }
      : { x: num(shape, 'x'), y: num(shape, 'y'), width: num(shape, 'width'), height: num(shape, 'height') };
    if (!inView(box)) return;
    const style = getComputedStyle(shape);
    const text = g.querySelector(':scope > text');
    const hidden = !text || getComputedStyle(text).display === 'none';
    out.push({
      id,
      ellipse,
      ...box,
      radius: ellipse ? 0 : num(shape, 'rx'),
      fill: style.fill,
      stroke: style.stroke,
      strokeWidth: parseFloat(style.strokeWidth) || 0,
      dash: shape.getAttribute('stroke-dasharray'),
      label: hidden ? '' : (text.textContent ?? ''),
      labelX: text ? num(text, 'x') : 0,
      labelY: text ? num(text, 'y') : 0,
      labelColor: text ? getComputedStyle(text).fill : '',
      fontSize: text ? num(text, 'font-size') : 0,
    });
  });
  return out;
}

/** What the pane shows now, or null when it is not mounted. */
function snapshot(side: Side): ViewSnapshot | null {
  const controller = paneFor(side);
  const pane = document.querySelector<HTMLElement>(`[data-testid="pane-${side}"]`);
  const svg = pane?.querySelector<SVGSVGElement>('svg.pb-graph-svg');
  if (!controller || !pane || !svg) return null;
  const { view, size, layouts, tree, cullWindow } = controller.store.getState();
  const onScreen = viewportRect(view, size);
  const inView = (r: { x: number; y: number; width: number; height: number }) => intersects(r, onScreen);
  let nodes: ViewNode[];
  if (view.k >= FAR_SCALE || tree.rootId === null) nodes = drawnNodes(svg, inView);
  else {
    // Far zoom: the canvas draws (FarCanvas) and there are no SVG nodes; the same scene and fills, without labels.
    const app = useAppStore.getState();
    const paint = { side, graphType: app.meta?.graphType ?? 'build', colors: app.meta?.colors ?? [] } as const;
    const theme = themeStore.getState().theme;
    nodes = visibleNodes(layouts, tree.rootId, cullWindow)
      .filter(inView)
      .map((n) => ({
        id: n.id,
        ellipse: false,
        x: n.x,
        y: n.y,
        width: n.width,
        height: n.height,
        radius: 0,
        fill: boxFill(tree, n.id, paint, theme),
        stroke: n.container ? CONTAINER_STROKE : BOX_STROKE,
        strokeWidth: 1 / view.k,
        dash: null,
        label: '',
        labelX: 0,
        labelY: 0,
        labelColor: '',
        fontSize: 0,
      }));
  }
  const { run, tag } = useAppStore.getState();
  return {
    width: size.width,
    height: size.height,
    background: getComputedStyle(pane).backgroundColor,
    view,
    fontFamily: LABEL_FONT_FAMILY,
    title: [run, tag, side].filter(Boolean).join(' · '),
    nodes,
  };
}

/** Draws the SVG on a canvas at the device pixel ratio: the PNG matches the screen pixel for pixel. */
async function svgToPng(svg: string, width: number, height: number): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const px = pngSize(width, height, window.devicePixelRatio);
    const canvas = document.createElement('canvas');
    canvas.width = px.width;
    canvas.height = px.height;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2d canvas');
    ctx.drawImage(image, 0, 0, px.width, px.height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('toBlob failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** "SVG" and "PNG" of one pane's current view (what is on screen), at the pane's bottom right. */
export function ExportMenu({ side }: { side: Side }) {
  const t = useT();
  const save = async (format: 'svg' | 'png') => {
    const shot = snapshot(side);
    if (!shot) return;
    const svg = viewSvg(shot);
    const { run, tag } = useAppStore.getState();
    const name = exportFileName([run, tag, side, 'view'], format);
    try {
      const blob = format === 'svg' ? new Blob([svg], { type: 'image/svg+xml;charset=utf-8' }) : await svgToPng(svg, shot.width, shot.height);
      downloadBlob(blob, name);
    } catch (err) {
      useAppStore.getState().setError(t('export.failed', { problem: err instanceof Error ? err.message : String(err) }));
    }
  };
  return (
    <div className="pb-export" role="group" aria-label={t('export.view')} data-testid={`export-${side}`}>
      <button type="button" data-testid={`export-svg-${side}`} title={t('export.svgTip')} onClick={() => void save('svg')}>
        {t('export.svg')}
      </button>
      <button type="button" data-testid={`export-png-${side}`} title={t('export.pngTip')} onClick={() => void save('png')}>
        {t('export.png')}
      </button>
    </div>
  );
}
