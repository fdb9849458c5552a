import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChildrenResponse, GraphEdge } from '../../src/core/api/types.js';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';

/**
 * Issue 16 in Chromium: dataflow edges of TensorBoard graphs drawn between the right boxes. Each drawn edge is
 * checked against the children answer (which the tb-* unit tests check against the files) and geometrically: its
 * path starts on the source's box and ends on the target's, in the coordinates the page draws.
 */

interface DrawnEdge {
  from: string;
  to: string;
  group: string;
  control: boolean;
  /** Distance in graph units from the path's first point to the source box and from its last point to the target. */
  startOff: number;
  endOff: number;
}

async function drawnEdges(page: Page): Promise<DrawnEdge[]> {
  return page.evaluate(() => {
    const boxOf = (id: string) => {
      const el = document.querySelector(`[data-node-id="${CSS.escape(id)}"][data-side="npu"]`) as SVGGraphicsElement | null;
      return el ? el.getBBox() : null;
    };
    const off = (p: DOMPoint, b: DOMRect | null) => {
      if (!b) return Infinity;
      const dx = Math.max(b.x - p.x, 0, p.x - (b.x + b.width));
      const dy = Math.max(b.y - p.y, 0, p.y - (b.y + b.height));
      return Math.hypot(dx, dy);
    };
    return [...document.querySelectorAll('[data-testid="pane-npu"] path[data-edge]')].map((el) => {
      const path = el as SVGPathElement;
      const from = path.dataset.from!;
      const to = path.dataset.to!;
      const length = path.getTotalLength();
      return {
        from,
        to,
        group: path.dataset.group!,
        control: path.dataset.control !== undefined,
        startOff: off(path.getPointAtLength(0), boxOf(from)),
        endOff: off(path.getPointAtLength(length), boxOf(to)),
      };
    });
  });
}

const pairs = (edges: Array<{ from: string; to: string }>) => edges.map((e) => `${e.from} → ${e.to}`).sort();
const node = (page: Page, id: string) => page.locator(`[data-node-id="${id}"][data-side="npu"]`);

describeBrowser('dataflow edges of TensorBoard graphs', () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(['test/fixtures/tb']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Opens a graph by link and records every children answer by the node it was asked for. */
  async function open(tag: string): Promise<{ page: Page; answers: Map<string, ChildrenResponse> }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    const answers = new Map<string, ChildrenResponse>();
    page.on('response', async (response) => {
      const url = new URL(response.url());
      if (!url.pathname.endsWith('/api/graph/children') || !response.ok()) return;
      answers.set(url.searchParams.get('node') ?? '', (await response.json()) as ChildrenResponse);
    });
    await page.goto(`${server.origin}/#graphs?run=tb&tag=${encodeURIComponent(tag)}`);
    await expect.poll(() => page.locator('[data-node-id][data-side="npu"]').count(), { timeout: 15_000 }).toBeGreaterThan(1);
    return { page, answers };
  }

  it('draws the GraphDef’s root dataflow between the right boxes, and an expanded scope keeps its edges on its frame', async () => {
    const { page, answers } = await open('tf_graph_app_demo_graph.pbtxt');
    // From the file: 0/0/Add and 0/1/Add read life and universe; answer reads 0/*, 1/*, everything.
    const expected = ['0 → answer', '1 → answer', 'everything → answer', 'life → 0', 'life → 1', 'universe → 0', 'universe → 1'];
    await expect.poll(async () => pairs(await drawnEdges(page)), { timeout: 10_000 }).toEqual(expected);
    const root = [...answers.values()].find((a) => a.edges?.length);
    expect(pairs(root!.edges!)).toEqual(expected);
    // Two Add ops in scope 0 read life: the bundle says so.
    expect(root!.edges!.find((e) => e.from === 'life' && e.to === '0')).toMatchObject({ data: 2, control: 0 });
    for (const e of await drawnEdges(page)) {
      expect(e.startOff, `${e.from} → ${e.to} start`).toBeLessThan(1);
      expect(e.endOff, `${e.from} → ${e.to} end`).toBeLessThan(1);
    }

    // The legend names both edge styles a TensorBoard graph draws.
    await expect.poll(() => page.locator('[data-testid="legend-edges"] .pb-legend__edge').count()).toBe(2);

    await node(page, '1').dblclick();
    await node(page, '1/Add').waitFor();
    await expect.poll(async () => (await drawnEdges(page)).filter((e) => e.to === '1').every((e) => e.endOff < 1)).toBe(true);
    expect(pairs(await drawnEdges(page))).toEqual(expected);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('expands a scope of an event file’s graph and draws its inner edges from the children answer', async () => {
    const { page, answers } = await open('events.out.tfevents.1795697749.vm.13893.0.tbdata#graph_def');
    const root = [...answers.values()].find((a) => a.children.length > 0)!;
    // The first scope whose own children are joined by dataflow.
    let scope: string | undefined;
    let inner: GraphEdge[] = [];
    for (const child of root.children.filter((c) => c.childCount > 0)) {
      const url = new URL(page.url().replace(/#.*$/, ''));
      const answer = (await page.evaluate(
        async ([origin, tag, id]) => (await fetch(`${origin}/api/graph/children?run=tb&tag=${encodeURIComponent(tag)}&side=npu&node=${encodeURIComponent(id)}`)).json(),
        [url.origin, 'events.out.tfevents.1795697749.vm.13893.0.tbdata#graph_def', child.id] as const,
      )) as ChildrenResponse;
      if (answer.edges?.length) {
        scope = child.id;
        inner = answer.edges;
        break;
      }
    }
    expect(scope, 'a scope with inner dataflow').toBeDefined();
    await node(page, scope!).dblclick();
    await expect
      .poll(async () => pairs((await drawnEdges(page)).filter((e) => e.group === scope)), { timeout: 10_000 })
      .toEqual(pairs(inner));
    for (const e of (await drawnEdges(page)).filter((d) => d.group === scope)) {
      expect(e.startOff, `${e.from} → ${e.to} start`).toBeLessThan(1);
      expect(e.endOff, `${e.from} → ${e.to} end`).toBeLessThan(1);
    }
    // Control dependencies are drawn dashed, data edges solid.
    const controlOnly = inner.filter((e) => e.data === 0).map((e) => `${e.from} → ${e.to}`);
    expect(pairs((await drawnEdges(page)).filter((e) => e.group === scope && e.control))).toEqual(controlOnly.sort());
    await page.screenshot({ path: screenshotPath('tb-edges') });
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('draws an ONNX model’s dataflow, its Loop and If bodies as groups joined by edges', async () => {
    const { page, answers } = await open('torch_loop_if.onnx');
    const root = [...answers.values()].find((a) => a.edges?.length)!;
    await expect.poll(async () => pairs(await drawnEdges(page)), { timeout: 10_000 }).toEqual(pairs(root.edges!));
    expect(pairs(root.edges!).some((p) => p.endsWith('→ Loop'))).toBe(true);
    for (const e of await drawnEdges(page)) expect(Math.max(e.startOff, e.endOff), `${e.from} → ${e.to}`).toBeLessThan(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
