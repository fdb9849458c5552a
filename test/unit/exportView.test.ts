import { describe, expect, it } from 'vitest';
import { pngSize, viewSvg, xmlEscape, type ViewNode, type ViewSnapshot } from '../../src/app/commands/exportView.js';

const node = (over: Partial<ViewNode>): ViewNode => ({
  id: 'Module.a.forward.0',
  ellipse: false,
  x: 10,
  y: 20,
  width: 100,
  height: 40,
  radius: 5,
  fill: 'rgb(255, 237, 190)',
  stroke: 'rgb(215, 197, 150)',
  strokeWidth: 1.5,
  dash: null,
  label: 'Module.a',
  labelX: 60,
  labelY: 40,
  labelColor: 'rgb(31, 35, 40)',
  fontSize: 10,
  ...over,
});

const snapshot = (nodes: ViewNode[]): ViewSnapshot => ({
  width: 640,
  height: 360,
  background: 'rgb(28, 33, 40)',
  view: { x: 12.345, y: -7, k: 1.5 },
  fontFamily: 'Arial, Helvetica, sans-serif',
  title: 'run · tag · npu',
  nodes,
});

/** Every element name and attribute of a small SVG, by a regex scan (no DOM in unit tests). */
const elements = (svg: string) => [...svg.matchAll(/<([a-zA-Z]+)([^>]*?)\/?>/g)].map((m) => ({ name: m[1], attrs: m[2] }));

describe('viewSvg', () => {
  it('draws each node with its id, shape, colours and label, under the view transform, on the background', () => {
    const nodes = [node({}), node({ id: 'Torch.add.0', ellipse: true, x: 200, y: 30, width: 60, height: 20, dash: '15,1', label: 'add' })];
    const svg = viewSvg(snapshot(nodes));
    expect(svg).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="640" height="360" viewBox="0 0 640 360">/);
    expect(svg).toContain('<rect width="640" height="360" fill="rgb(28, 33, 40)"/>');
    expect(svg).toContain('<g transform="translate(12.35,-7) scale(1.5)">');
    expect(svg).toContain('<g data-node-id="Module.a.forward.0"><title>Module.a.forward.0</title><rect x="10" y="20" width="100" height="40" rx="5" ry="5" fill="rgb(255, 237, 190)" stroke="rgb(215, 197, 150)" stroke-width="1.5"/>');
    expect(svg).toContain('<ellipse cx="230" cy="40" rx="30" ry="10" fill="rgb(255, 237, 190)" stroke="rgb(215, 197, 150)" stroke-width="1.5" stroke-dasharray="15,1"/>');
    expect(svg).toContain('fill="rgb(31, 35, 40)">add</text>');
    expect((svg.match(/data-node-id=/g) ?? []).length).toBe(2);
  });

  it('is self-contained: no stylesheet, script, image, link or url() reference', () => {
    const svg = viewSvg(snapshot([node({})]));
    const names = new Set(elements(svg).map((e) => e.name));
    for (const forbidden of ['style', 'script', 'image', 'use', 'a', 'foreignObject', 'link']) expect(names.has(forbidden), forbidden).toBe(false);
    expect(svg).not.toMatch(/href|url\(|@import/);
  });

  it('escapes names, labels and the title, and replaces characters XML cannot carry', () => {
    const evil = `Module.<script>alert("x")</script>&'.forward.0`;
    const svg = viewSvg({ ...snapshot([node({ id: evil, label: evil })]), title: 'a<b>&"c"' });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain(`data-node-id="${xmlEscape(evil)}"`);
    expect(svg).toContain(`<title>${xmlEscape(evil)}</title>`);
    expect(svg).toContain('<title>a&lt;b&gt;&amp;&quot;c&quot;</title>');
    expect(viewSvg(snapshot([node({ id: 'bad\u0001id' })]))).toContain('data-node-id="bad\ufffdid"');
  });

  it('leaves out empty labels (far zoom draws no text)', () => {
    const svg = viewSvg(snapshot([node({ label: '' })]));
    expect(svg).not.toContain('<text');
  });
});

describe('pngSize', () => {
  it('scales by the device pixel ratio and caps the longest side', () => {
    expect(pngSize(640, 360, 2)).toEqual({ width: 1280, height: 720, scale: 2 });
    expect(pngSize(640, 360, 0)).toEqual({ width: 640, height: 360, scale: 1 });
    const capped = pngSize(20000, 100, 2, 16384);
    expect(capped.width).toBe(16384);
    expect(capped.height).toBe(82);
  });
});
