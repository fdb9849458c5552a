import { describe, expect, it } from 'vitest';
import { childShape, collapsedSize } from '../../src/core/layout/boxSize.js';
import { layoutGroup, layoutGroups } from '../../src/core/layout/groupLayout.js';
import { nodeLabel } from '../../src/core/layout/nodeLabel.js';
import { locate, visibleNodes } from '../../src/core/layout/scene.js';
import { approximateTextMeasurer, truncateToWidth } from '../../src/core/layout/textMeasure.js';
import { DEFAULT_LAYOUT_PARAMS as P, type GroupChild, type GroupInput, type GroupLayout } from '../../src/core/layout/types.js';
import { groupProblems, sceneProblems } from './layoutInvariants.js';

const leaf = (id: string): GroupChild => ({ id, shape: 'leaf', width: P.leafWidth, height: P.leafHeight, expanded: false });
const mod = (id: string, width = 120): GroupChild => ({ id, shape: 'module', width, height: P.moduleHeight, expanded: false });
const group = (id: string, children: GroupChild[], titleWidth = 40): GroupInput => ({ id, titleWidth, children });

describe('layoutGroup', () => {
  it('packs 12 consecutive leaves into rows of 5, 5 and 2, left to right, top to bottom', () => {
    const layout = layoutGroup(group('g', Array.from({ length: 12 }, (_, i) => leaf(`l${i}`))));
    const rows = [...new Set(layout.children.map((c) => c.y))];
    expect(rows).toHaveLength(3);
    expect(layout.children.filter((c) => c.y === rows[0]).map((c) => c.id)).toEqual(['l0', 'l1', 'l2', 'l3', 'l4']);
    expect(layout.children.filter((c) => c.y === rows[2]).map((c) => c.id)).toEqual(['l10', 'l11']);
    expect(rows[1] - rows[0]).toBe(P.leafHeight + P.vGap);
    expect(layout.children[1].x - layout.children[0].x).toBe(P.leafWidth + P.hGap);
    // A full row sets the width: 5 leaves + 4 gaps + padding.
    expect(layout.width).toBe(5 * P.leafWidth + 4 * P.hGap + 2 * P.padX);
    expect(layout.height).toBe(P.titleHeight + P.padTop + 3 * P.leafHeight + 2 * P.vGap + P.padBottom);
    expect(groupProblems(layout)).toEqual([]);
  });

  it('starts a new row after every module and centres the short row', () => {
    const layout = layoutGroup(group('g', [leaf('a'), leaf('b'), mod('M', 200), leaf('c')]));
    const [a, b, m, c] = layout.children;
    expect(a.y).toBe(b.y);
    expect(m.y).toBeGreaterThanOrEqual(a.y + a.height + P.vGap);
    expect(c.y).toBeGreaterThanOrEqual(m.y + m.height + P.vGap);
    expect(layout.width).toBe(200 + 2 * P.padX);
    // The two-leaf row is centred under the 200-wide module.
    const rowWidth = 2 * P.leafWidth + P.hGap;
    expect(a.x).toBeCloseTo((layout.width - rowWidth) / 2, 6);
    expect(m.x).toBeCloseTo(P.padX, 6);
    expect(groupProblems(layout)).toEqual([]);
  });

  it('keeps the title readable: a long title widens the container', () => {
    const layout = layoutGroup(group('g', [leaf('a')], 300));
    expect(layout.width).toBe(300);
    expect(layout.children[0].x).toBeCloseTo((300 - P.leafWidth) / 2, 6);
  });

  it('gives an empty group just a title bar', () => {
    const layout = layoutGroup(group('g', [], 80));
    expect(layout).toEqual({ id: 'g', width: 80, height: P.titleHeight + P.padBottom, children: [] });
  });

  it('produces the same geometry through dagre and through the direct stack used for huge groups', () => {
    const children = [leaf('a'), mod('M1', 90), leaf('b'), leaf('c'), mod('M2', 310), ...Array.from({ length: 7 }, (_, i) => leaf(`x${i}`))];
    const viaDagre = layoutGroup(group('g', children));
    const viaStack = layoutGroup(group('g', children), { ...P, dagreMaxItems: 0 });
    expect(viaStack.width).toBeCloseTo(viaDagre.width, 6);
    expect(viaStack.height).toBeCloseTo(viaDagre.height, 6);
    viaDagre.children.forEach((c, i) => {
      expect(viaStack.children[i].x).toBeCloseTo(c.x, 6);
      expect(viaStack.children[i].y).toBeCloseTo(c.y, 6);
    });
  });

  it('lays out a group of 2,000 leaves (more than the future split threshold) without failing', () => {
    const layout = layoutGroup(group('big', Array.from({ length: 2000 }, (_, i) => leaf(`l${i}`))));
    expect(layout.children).toHaveLength(2000);
    expect(layout.height).toBe(P.titleHeight + P.padTop + 400 * P.leafHeight + 399 * P.vGap + P.padBottom);
    expect(groupProblems(layout)).toEqual([]);
  });
});

describe('layoutGroups (a batch: child group, then its ancestors)', () => {
  it('passes a freshly laid out child size to its parent', () => {
    const inner = group('inner', Array.from({ length: 7 }, (_, i) => leaf(`l${i}`)));
    const outer = group('outer', [leaf('before'), { ...mod('inner'), width: 1, height: 1, expanded: true }, leaf('after')]);
    const [innerLayout, outerLayout] = layoutGroups([inner, outer]);
    const slot = outerLayout.children[1];
    expect(slot.width).toBe(innerLayout.width);
    expect(slot.height).toBe(innerLayout.height);
    expect(slot.expanded).toBe(true);
    expect(groupProblems(outerLayout)).toEqual([]);
  });
});

/** A seeded random tree, fully expanded, laid out bottom-up: the invariants must hold everywhere. */
describe('nested layout invariants on random trees', () => {
  function random(seed: number) {
    let s = seed;
    return () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 2147483648;
    };
  }

  for (const seed of [1, 7, 42, 1234]) {
    it(`seed ${seed}`, () => {
      const rnd = random(seed);
      const layouts = new Map<string, GroupLayout>();
      let counter = 0;
      // Post-order: children groups are laid out first, their sizes feed the parent.
      const build = (id: string, depth: number): GroupLayout => {
        const n = 1 + Math.floor(rnd() * 14);
        const children: GroupChild[] = [];
        for (let i = 0; i < n; i++) {
          const childId = `${id}.${counter++}`;
          const r = rnd();
          if (depth < 4 && r < 0.25) {
            const sub = build(childId, depth + 1);
            children.push({ id: childId, shape: 'module', expanded: true, width: sub.width, height: sub.height });
          } else if (r < 0.45) children.push(mod(childId, 30 + Math.floor(rnd() * 250)));
          else children.push(leaf(childId));
        }
        const layout = layoutGroup(group(id, children, 20 + Math.floor(rnd() * 200)));
        layouts.set(id, layout);
        return layout;
      };
      build('root', 0);
      expect(layouts.size).toBeGreaterThan(1);
      expect(sceneProblems(layouts, 'root')).toEqual([]);
    });
  }
});

describe('scene: absolute boxes, culling, locate', () => {
  const inner = layoutGroup(group('M', [leaf('a'), leaf('b')]));
  const root = layoutGroup(group('R', [leaf('x'), { ...mod('M'), width: inner.width, height: inner.height, expanded: true }, leaf('y')]));
  const layouts = new Map([
    ['R', root],
    ['M', inner],
  ]);
  const parentOf = new Map([
    ['x', 'R'],
    ['M', 'R'],
    ['y', 'R'],
    ['a', 'M'],
    ['b', 'M'],
  ]);

  it('walks containers before their children, with absolute positions', () => {
    const drawn = visibleNodes(layouts, 'R');
    expect(drawn.map((n) => n.id)).toEqual(['R', 'x', 'M', 'a', 'b', 'y']);
    const m = drawn[2];
    const a = drawn[3];
    expect(m.container).toBe(true);
    expect(a.x).toBeCloseTo(m.x + inner.children[0].x, 6);
    expect(a.y).toBeCloseTo(m.y + inner.children[0].y, 6);
    expect(a.depth).toBe(2);
  });

  it('skips whole subtrees outside the window', () => {
    const m = root.children[1];
    const aboveM = { x: 0, y: 0, width: root.width, height: m.y - 1 };
    expect(visibleNodes(layouts, 'R', aboveM).map((n) => n.id)).toEqual(['R', 'x']);
    const onlyA = { x: m.x + inner.children[0].x + 1, y: m.y + inner.children[0].y + 1, width: 2, height: 2 };
    expect(visibleNodes(layouts, 'R', onlyA).map((n) => n.id)).toEqual(['R', 'M', 'a']);
  });

  it('locates drawn nodes and nothing under a closed group', () => {
    const b = locate(layouts, parentOf, 'R', 'b')!;
    const drawnB = visibleNodes(layouts, 'R').find((n) => n.id === 'b')!;
    expect(b).toEqual({ x: drawnB.x, y: drawnB.y, width: drawnB.width, height: drawnB.height });
    expect(locate(layouts, parentOf, 'R', 'R')).toEqual({ x: 0, y: 0, width: root.width, height: root.height });
    const closed = new Map([['R', root]]);
    expect(locate(closed, parentOf, 'R', 'a')).toBeNull();
    expect(locate(layouts, parentOf, 'R', 'unknown')).toBeNull();
  });
});

describe('labels', () => {
  it('shows first-level nodes in full', () => {
    expect(nodeLabel('Module.module.Float16Module.forward.0', 0, 1)).toBe('Module.module.Float16Module.forward.0');
  });
  it('keeps the last 4 segments of deeper modules, 5 when the 4th from the end is a number', () => {
    const attn = 'Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0';
    expect(nodeLabel(attn, 0, 3)).toBe('self_attention.ParallelAttention.forward.0');
    const layer = 'Module.module.module.language_model.encoder.layers.0.ParallelTransformerLayer.forward.0';
    expect(nodeLabel(layer, 0, 3)).toBe('layers.0.ParallelTransformerLayer.forward.0');
  });
  it('keeps the last 2 segments of deeper APIs, 3 when the first kept one is a number', () => {
    expect(nodeLabel('Tensor.__add__.0.forward', 1, 2)).toBe('__add__.0.forward');
    expect(nodeLabel('Distributed.all_reduce.forward', 1, 2)).toBe('all_reduce.forward');
  });
  it('leaves short names alone', () => {
    expect(nodeLabel('Apis_Between_Modules.0', 9, 2)).toBe('Apis_Between_Modules.0');
  });
});

describe('text: sizes and truncation with the deterministic measurer', () => {
  it('truncates with an ellipsis to the widest prefix that fits', () => {
    // 6 px font → 3.6 px per character.
    const out = truncateToWidth('self_attention.ParallelAttention', 40, 6, approximateTextMeasurer);
    expect(out).toBe('self_atten…'); // 11 chars × 3.6 = 39.6
    expect(approximateTextMeasurer(out, 6)).toBeLessThanOrEqual(40);
    expect(approximateTextMeasurer('self_attent…', 6)).toBeGreaterThan(40);
    expect(truncateToWidth('short', 40, 6, approximateTextMeasurer)).toBe('short');
    expect(truncateToWidth('abc', 1, 6, approximateTextMeasurer)).toBe('');
  });
  it('sizes collapsed boxes: leaves fixed, modules by label, capped', () => {
    expect(childShape(0)).toBe('leaf');
    expect(childShape(3)).toBe('module');
    expect(collapsedSize('leaf', 'whatever long name', approximateTextMeasurer, P)).toEqual({ width: 50, height: 15 });
    // 8 px font → 4.8 px per char: 10 chars = 48 + 10 padding.
    expect(collapsedSize('module', 'abcdefghij', approximateTextMeasurer, P)).toEqual({ width: 58, height: 15 });
    expect(collapsedSize('module', 'x'.repeat(500), approximateTextMeasurer, P).width).toBe(P.moduleMaxWidth);
    expect(collapsedSize('module', '', approximateTextMeasurer, P).width).toBe(P.moduleMinWidth);
  });
});

describe('the invariant checker itself', () => {
  it('reports a child outside, an overlap and a step back in execution order', () => {
    const bad: GroupLayout = {
      id: 'g',
      width: 100,
      height: 50,
      children: [
        { id: 'a', shape: 'leaf', expanded: false, x: 10, y: 20, width: 50, height: 15 },
        { id: 'b', shape: 'leaf', expanded: false, x: 30, y: 20, width: 50, height: 15 },
        { id: 'c', shape: 'leaf', expanded: false, x: 0, y: 0, width: 50, height: 15 },
        { id: 'd', shape: 'leaf', expanded: false, x: 80, y: 40, width: 50, height: 15 },
      ],
    };
    const problems = groupProblems(bad);
    expect(problems).toContain('g: siblings a and b overlap');
    expect(problems).toContain('g: c is not after b in execution order');
    expect(problems).toContain('g: child d leaves its parent');
  });
});
