import { describe, expect, it } from 'vitest';
import { fit, locateView, READABLE_WIDTH, scrollIntoView } from '../../src/app/commands/viewport.js';

const size = { width: 800, height: 600 };
const screenBox = (view: { x: number; y: number; k: number }, box: { x: number; y: number; width: number; height: number }) => ({
  left: box.x * view.k + view.x,
  top: box.y * view.k + view.y,
  width: box.width * view.k,
  height: box.height * view.k,
});

describe('locateView (issue 14 item 7)', () => {
  const graph = { x: 0, y: 0, width: 40_000, height: 20_000 };
  const target = { x: 30_000, y: 12_000, width: 240, height: 30 };

  it('after Fit, zooms a tiny target up to a readable width and centres it', () => {
    const fitted = fit(graph, size);
    expect(screenBox(fitted, target).width).toBeLessThan(10);
    // The old behaviour kept the zoom: still a few pixels wide.
    expect(screenBox(scrollIntoView(fitted, target, size), target).width).toBeLessThan(10);
    const view = locateView(fitted, target, size);
    const s = screenBox(view, target);
    expect(s.width).toBeCloseTo(READABLE_WIDTH);
    expect(s.left + s.width / 2).toBeCloseTo(size.width / 2);
    expect(s.top + s.height / 2).toBeCloseTo(size.height / 2);
  });

  it('never zooms in beyond 1.0 for a small node, and keeps a closer zoom the user chose', () => {
    const leaf = { x: 500, y: 700, width: 60, height: 15 };
    expect(locateView({ x: 0, y: 0, k: 0.05 }, leaf, size).k).toBe(1);
    expect(locateView({ x: 0, y: 0, k: 1.5 }, leaf, size).k).toBe(1.5);
    // Already readable: the scale stays, the node is centred anyway.
    const view = locateView({ x: 0, y: 0, k: 0.8 }, target, size);
    expect(view.k).toBe(0.8);
    const s = screenBox(view, target);
    expect(s.left + s.width / 2).toBeCloseTo(size.width / 2);
  });

  it('puts a box larger than the pane at its top-left corner', () => {
    const big = { x: 100, y: 100, width: 5_000, height: 9_000 };
    const view = locateView({ x: 0, y: 0, k: 0.5 }, big, size);
    const s = screenBox(view, big);
    expect(view.k).toBe(0.5);
    expect(s.left).toBe(16);
    expect(s.top).toBe(16);
  });
});
