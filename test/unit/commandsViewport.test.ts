import { describe, expect, it } from 'vitest';
import {
  fit,
  fitStep,
  initialView,
  keepInView,
  MAX_FIT_SCALE,
  panBy,
  READABLE_FIT_SCALE,
  SCALE_EXTENT,
  scrollIntoView,
  viewportRect,
  zoomBy,
} from '../../src/app/commands/viewport.js';
import { nextCullWindow } from '../../src/app/pane/cullWindow.js';

const size = { width: 800, height: 600 };

function toScreen(view: { x: number; y: number; k: number }, gx: number, gy: number) {
  return { x: gx * view.k + view.x, y: gy * view.k + view.y };
}

describe('viewport commands', () => {
  it('zoomBy keeps the graph point under the anchor fixed', () => {
    const view = { x: 30, y: -40, k: 1.5 };
    const anchor = { x: 500, y: 200 };
    const next = zoomBy(view, 1.2, anchor);
    expect(next.k).toBeCloseTo(1.8, 10);
    const g = { x: (anchor.x - view.x) / view.k, y: (anchor.y - view.y) / view.k };
    const s = toScreen(next, g.x, g.y);
    expect(s.x).toBeCloseTo(anchor.x, 9);
    expect(s.y).toBeCloseTo(anchor.y, 9);
  });

  it('zoomBy clamps the scale and then keeps the anchor too', () => {
    const maxed = zoomBy({ x: 0, y: 0, k: SCALE_EXTENT[1] }, 2, { x: 100, y: 100 });
    expect(maxed).toEqual({ x: 0, y: 0, k: SCALE_EXTENT[1] });
    expect(zoomBy({ x: 0, y: 0, k: SCALE_EXTENT[0] }, 0.5, { x: 0, y: 0 }).k).toBe(SCALE_EXTENT[0]);
  });

  it('panBy moves the translation only', () => {
    expect(panBy({ x: 1, y: 2, k: 3 }, 40, -10)).toEqual({ x: 41, y: -8, k: 3 });
  });

  it('fit shows the whole bounds centred with padding', () => {
    const bounds = { x: 0, y: 0, width: 2000, height: 500 };
    const view = fit(bounds, size, 16);
    expect(view.k).toBeCloseTo((800 - 32) / 2000, 10);
    const topLeft = toScreen(view, 0, 0);
    const bottomRight = toScreen(view, 2000, 500);
    expect(topLeft.x).toBeCloseTo(16, 9);
    expect(bottomRight.x).toBeCloseTo(784, 9);
    expect((topLeft.y + bottomRight.y) / 2).toBeCloseTo(300, 9);
  });

  it('fit never magnifies a small graph beyond the opening scale', () => {
    const view = fit({ x: 0, y: 0, width: 50, height: 20 }, size);
    expect(view.k).toBe(MAX_FIT_SCALE);
    const c = toScreen(view, 25, 10);
    expect(c.x).toBeCloseTo(400, 9);
    expect(c.y).toBeCloseTo(300, 9);
  });

  it('initialView fits the width and aligns the top', () => {
    const view = initialView({ x: 0, y: 0, width: 600, height: 90000 }, size, 16);
    expect(view.k).toBeCloseTo(768 / 600, 10);
    expect(view.y).toBe(16);
    expect(toScreen(view, 300, 0).x).toBeCloseTo(400, 9);
  });

  it('initialView never goes below the readable scale: a wide graph starts at its left edge', () => {
    const view = initialView({ x: -20, y: 0, width: 1536, height: 90000 }, size, 16);
    expect(view.k).toBe(READABLE_FIT_SCALE);
    expect(toScreen(view, -20, 0)).toEqual({ x: 16, y: 16 });
  });

  it('fitStep: readable first, the whole graph on the second press, readable again on the third', () => {
    const bounds = { x: 0, y: 0, width: 300, height: 5000 };
    const first = fitStep({ x: 0, y: 0, k: 1 }, bounds, size);
    expect(first).toEqual(initialView(bounds, size));
    expect(first.k * 8).toBeGreaterThanOrEqual(10);
    const second = fitStep(first, bounds, size);
    expect(second).toEqual(fit(bounds, size));
    expect(second.k).toBeLessThan(first.k);
    expect(fitStep(second, bounds, size)).toEqual(first);
  });

  it('fitStep keeps one view for a graph that fits whole at a readable scale', () => {
    const bounds = { x: 0, y: 0, width: 200, height: 100 };
    const first = fitStep({ x: 0, y: 0, k: 1 }, bounds, size);
    expect(fitStep(first, bounds, size)).toEqual(first);
    expect(first.k).toBe(MAX_FIT_SCALE);
  });

  it('viewportRect inverts the transform', () => {
    expect(viewportRect({ x: -100, y: 50, k: 2 }, size)).toEqual({ x: 50, y: -25, width: 400, height: 300 });
  });

  it('scrollIntoView leaves a visible box alone and centres a hidden one at the same scale', () => {
    const view = { x: 0, y: 0, k: 2 };
    expect(scrollIntoView(view, { x: 10, y: 10, width: 50, height: 15 }, size)).toBe(view);
    const far = { x: 1000, y: 3000, width: 50, height: 15 };
    const next = scrollIntoView(view, far, size);
    expect(next.k).toBe(2);
    const c = toScreen(next, far.x + far.width / 2, far.y + far.height / 2);
    expect(c.x).toBeCloseTo(400, 9);
    expect(c.y).toBeCloseTo(300, 9);
  });

  it('scrollIntoView puts a box larger than the pane at the top-left margin', () => {
    const next = scrollIntoView({ x: 0, y: 0, k: 1 }, { x: -500, y: 100, width: 2000, height: 3000 }, size, 16);
    expect(toScreen(next, -500, 100)).toEqual({ x: 16, y: 16 });
  });
});

describe('keepInView', () => {
  const bounds = { x: 0, y: 0, width: 400, height: 3000 };
  it('leaves a view that shows part of the graph alone', () => {
    const view = { x: -300, y: -2900, k: 1 };
    expect(keepInView(view, bounds, size, 48)).toBe(view);
  });
  it('pulls a graph scrolled off the top back until 48 px show', () => {
    const next = keepInView({ x: 0, y: -5000, k: 1 }, bounds, size, 48);
    expect(next).toEqual({ x: 0, y: -3000 + 48, k: 1 });
  });
  it('pulls a graph dragged off the right and bottom back', () => {
    const next = keepInView({ x: 2000, y: 900, k: 0.5 }, bounds, size, 48);
    expect(next).toEqual({ x: 800 - 48, y: 600 - 48, k: 0.5 });
  });
});

describe('nextCullWindow (culling with hysteresis)', () => {
  const start = nextCullWindow({ x: 0, y: 0, width: 0, height: 0 }, { x: 0, y: 0, k: 1 }, size);
  it('draws one viewport of margin on every side', () => {
    expect(start).toEqual({ x: -800, y: -600, width: 2400, height: 1800 });
  });
  it('keeps the same window (no node re-render) for a small pan', () => {
    expect(nextCullWindow(start, { x: -300, y: -200, k: 1 }, size)).toBe(start);
  });
  it('moves the window when the viewport nears its edge', () => {
    const moved = nextCullWindow(start, { x: -900, y: 0, k: 1 }, size);
    expect(moved).toEqual({ x: 100, y: -600, width: 2400, height: 1800 });
  });
  it('shrinks the window after a big zoom in and grows it on zoom out', () => {
    expect(nextCullWindow(start, { x: 0, y: 0, k: 4 }, size).width).toBe(600);
    expect(nextCullWindow(start, { x: 0, y: 0, k: 0.25 }, size).width).toBe(9600);
  });
});
