import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NodeSummary } from '../../src/core/api/types.js';
import { parseSplitId } from '../../src/core/layout/groupSplit.js';
import { closeAllBut, collapse, expand, fetchStarted, wantOpen } from '../../src/app/commands/expansion.js';
import { pageLoaded } from '../../src/app/commands/splitTree.js';
import { ancestorsOf, childrenToFetch, treeForRoot, type TreeState } from '../../src/app/commands/treeState.js';
import { emptyHashState, formatHash, parseHash } from '../../src/app/state/url.js';
import { decodeGroups, decodeView, encodeGroups, encodeView, LINK_MAX_GROUPS, openGroupsForLink } from '../../src/app/state/viewLink.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14 item 9: a link carries each side's open groups (front-coded ids) and viewport. The tree under test is the
 * NPU side of a bundled multi-level compare file; what a restore must open is computed from that file.
 */
interface RawNode {
  subnodes?: string[];
}
const doc = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/e2e/compare/synth_2layer.vis'), 'utf8').replace(/\bNaN\b/g, 'null'));
const nodes = doc.NPU.node as Record<string, RawNode>;
const ROOT = doc.NPU.root as string;
const kids = (id: string) => nodes[id]?.subnodes ?? [];

function summary(id: string): NodeSummary {
  const childCount = kids(id).length;
  return { id, nodeType: childCount ? 0 : 1, precisionIndex: null, overflowLevel: null, matchedNodeLink: [], childCount, microStepId: null };
}

/** Groups in pre-order: any prefix of the list is a closed tree (every group's parent comes first). */
function groupsPreOrder(): string[] {
  const out: string[] = [];
  const visit = (id: string) => {
    if (kids(id).length === 0) return;
    out.push(id);
    kids(id).forEach(visit);
  };
  visit(ROOT);
  return out;
}

/** Answers every children request as the pane's loader does (pages of `threshold`), until none is left. */
function settle(tree: TreeState, threshold = 400): { tree: TreeState; asked: string[] } {
  const asked: string[] = [];
  let t = tree;
  for (let ids = childrenToFetch(t); ids.length > 0; ids = childrenToFetch(t)) {
    t = fetchStarted(t, ids);
    for (const id of ids) {
      asked.push(id);
      const range = parseSplitId(id);
      const all = kids(range ? range.parentId : id).map(summary);
      if (!nodes[range ? range.parentId : id]) throw new Error(`asked for a node the file lacks: ${id}`);
      t = range
        ? pageLoaded(t, id, { offset: range.lo, children: all.slice(range.lo, range.hi), total: all.length }, threshold)
        : pageLoaded(t, id, { offset: 0, children: all.slice(0, threshold), total: all.length }, threshold);
    }
  }
  return { tree: t, asked };
}

/** The tree with `ids` opened by hand, one expand at a time, as a user would. */
function openedByHand(ids: readonly string[], threshold = 400): TreeState {
  let t = settle(treeForRoot(ROOT), threshold).tree;
  for (const id of ids) t = settle(expand(t, id), threshold).tree;
  return t;
}

describe('view links: open groups and viewport', () => {
  it('restores 50 open groups from the link alone, level by level, asking only for groups the file has', () => {
    const groups = groupsPreOrder();
    expect(groups.length).toBeGreaterThan(50);
    const open = groups.slice(1, 51);
    const original = openedByHand(open);
    expect(original.expanded.size).toBe(51);

    const hash = formatHash({ ...emptyHashState, run: 'compare', tag: 'synth_2layer', panes: { npu: { open: openGroupsForLink(original), view: null }, bench: { open: [], view: null } } });
    // A few KB at most for 50 groups, and much shorter than the ids written out.
    expect(hash.length).toBeLessThan(3000);
    expect(hash.length).toBeLessThan(open.join(',').length / 2);

    // A fresh page: the root only, then the link's groups plus two the file does not have.
    const link = parseHash(hash).panes.npu.open;
    const restored = settle(wantOpen(treeForRoot(ROOT), [...link, 'Module.gone.forward.0', `${open[3]}.gone`]));
    expect([...restored.tree.expanded].sort()).toEqual([ROOT, ...open].sort());
    expect(restored.asked.sort()).toEqual([ROOT, ...open].sort());
    expect(restored.tree.wanted.size).toBe(2);
  });

  it('restores open groups inside split groups (pseudo-group ids travel like any id)', () => {
    const threshold = 20;
    const wide = groupsPreOrder().find((id) => kids(id).length > threshold)!;
    const inner = kids(wide).find((id) => kids(id).length > 0)!;
    let t = openedByHand([...ancestorsOfRaw(wide).slice(1), wide], threshold);
    expect(t.totals.has(wide)).toBe(true);
    const at = kids(wide).indexOf(inner);
    const slice = t.children.get(wide)!.find((p) => parseSplitId(p)!.lo <= at && at < parseSplitId(p)!.hi)!;
    t = settle(expand(expand(t, slice), inner), threshold).tree;
    expect(t.expanded.has(inner)).toBe(true);

    const panes = { npu: { open: openGroupsForLink(t), view: null }, bench: { open: [], view: null } };
    const linked = parseHash(formatHash({ ...emptyHashState, panes })).panes.npu.open;
    expect(linked).toContain(slice);
    const restored = settle(wantOpen(treeForRoot(ROOT), linked), threshold).tree;
    expect([...restored.expanded].sort()).toEqual([...t.expanded].sort());
  });

  it('caps a link at the shallowest groups, keeping every named group’s parent', () => {
    const all = groupsPreOrder();
    const t = openedByHand(all.slice(1));
    const capped = openGroupsForLink(t, 20);
    expect(capped).toHaveLength(20);
    for (const id of capped) expect(ancestorsOf(t, id).every((a) => a === ROOT || capped.includes(a))).toBe(true);
    const depth = (id: string) => ancestorsOf(t, id).length;
    const deepestKept = Math.max(...capped.map(depth));
    expect(all.slice(1).filter((id) => !capped.includes(id)).every((id) => depth(id) >= deepestKept)).toBe(true);
    expect(openGroupsForLink(t).length).toBe(Math.min(LINK_MAX_GROUPS, all.length - 1));
  });

  it('a collapse during a restore ends it', () => {
    const [, first, second] = groupsPreOrder();
    let t = settle(treeForRoot(ROOT)).tree;
    t = wantOpen(t, [first, second]);
    expect(t.pending.has(first)).toBe(kids(ROOT).includes(first));
    t = collapse(t, first);
    expect(t.wanted.size).toBe(0);
  });

  it('applied to a tree already open, an exact restore closes what the link does not list', () => {
    const groups = groupsPreOrder();
    const linked = groups.slice(1, 11);
    const link = openGroupsForLink(openedByHand(linked));
    const shown = openedByHand(groups.slice(1, 31));
    const restored = settle(wantOpen(closeAllBut(shown, new Set(link)), link)).tree;
    expect([...restored.expanded].sort()).toEqual([ROOT, ...linked].sort());
    expect(restored.pending.size + restored.wanted.size).toBe(0);
    // A listed group inside one that closes closes with it (a hand-edited link that leaves its parent out).
    const inner = linked.find((id) => ancestorsOf(shown, id).length > 1)!;
    const parent = ancestorsOf(shown, inner).at(-1)!;
    const cut = closeAllBut(shown, new Set(link.filter((id) => id !== parent)));
    expect(cut.expanded.has(parent) || cut.expanded.has(inner)).toBe(false);
    expect(cut.expanded.has(ROOT)).toBe(true);
  });

  it('round-trips ids that hold the separators, escapes and any text', () => {
    const ids = ['a*b', 'a%2Ab', 'a%b', 'Tensor.__add__.0.forward', 'Tensor.__add__.1.forward', '模块.层.0', '0.5.x', 'x'];
    expect(decodeGroups(encodeGroups(ids))).toEqual([...ids].sort());
    const hash = formatHash({ ...emptyHashState, panes: { npu: { open: ids, view: null }, bench: { open: ['only'], view: null } } });
    expect(parseHash(hash).panes.npu.open).toEqual([...ids].sort());
    expect(parseHash(hash).panes.bench.open).toEqual(['only']);
    expect(encodeGroups(['Module.layers.0.mlp', 'Module.layers.0.attn', 'Module.layers.1.mlp'])).toBe(
      '0.Module.layers.0.attn*16.mlp*14.1.mlp',
    );
  });

  it('reads junk as far as it is well formed; old links carry no panes', () => {
    expect(decodeGroups('0.abc*2.d*99.x*0.zzz')).toEqual(['abc', 'abd']);
    expect(decodeGroups('junk')).toEqual([]);
    expect(decodeGroups('0.')).toEqual([]);
    expect(decodeGroups(null)).toEqual([]);
    expect(decodeView('1_2')).toBeNull();
    expect(decodeView('1_2_0')).toBeNull();
    expect(decodeView('a_2_1')).toBeNull();
    expect(decodeView('1_2_99')).toEqual({ x: 1, y: 2, k: 8 });
    const old = parseHash('#graphs?run=r&tag=t&node=X&pos=3');
    expect(old.panes).toEqual(emptyHashState.panes);
    expect(formatHash(old)).toBe('#graphs?run=r&tag=t&side=npu&node=X&pos=3');
  });

  it('writes the viewport to a tenth of a pixel', () => {
    const view = { x: -1234.5678, y: 98.76, k: 0.123456789 };
    const back = decodeView(encodeView(view))!;
    expect(Math.abs(back.x - view.x)).toBeLessThan(0.06);
    expect(Math.abs(back.y - view.y)).toBeLessThan(0.06);
    // At graph coordinate 10^4 the scale's rounding moves a point by well under a pixel.
    expect(Math.abs(back.k - view.k) * 1e4).toBeLessThan(0.01);
    const hash = formatHash({ ...emptyHashState, run: 'r', tag: 't', panes: { npu: { open: [], view }, bench: { open: [], view: { x: 0, y: 0, k: 1 } } } });
    expect(hash).toContain('view.npu=-1234.6_98.8_0.123457');
    expect(parseHash(hash).panes.bench.view).toEqual({ x: 0, y: 0, k: 1 });
  });
});

/** Ancestors root → parent from the file itself. */
function ancestorsOfRaw(id: string): string[] {
  const parent = new Map<string, string>();
  for (const [p, n] of Object.entries(nodes)) for (const c of n.subnodes ?? []) parent.set(c, p);
  const out: string[] = [];
  for (let at = parent.get(id); at !== undefined; at = parent.get(at)) out.unshift(at);
  return out;
}
