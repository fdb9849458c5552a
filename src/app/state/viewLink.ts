import { ancestorsOf, type TreeState } from '../commands/treeState.js';
import { clampScale, type View } from '../commands/viewport.js';

/**
 * One pane's part of a link (issue 14 item 9): its open groups and its viewport. Pure, so the encoding is unit-tested
 * without a browser; url.ts puts it in the hash, urlSync.ts and the panes apply it.
 */
export interface PaneLink {
  /** Open groups by id, the root left out (always open). Ids, not positions: they survive a rebuilt file. */
  open: string[];
  /** d3-zoom transform (screen = graph × k + (x, y)); null = the pane's own opening view. */
  view: View | null;
}

export const emptyPaneLink: PaneLink = { open: [], view: null };

/**
 * A link names at most this many open groups per side (shallowest first, so every named group's parent is named
 * too); ~50 groups of a 48-layer model take about 2 KB. Groups beyond the cap are opened by hand after the link.
 */
export const LINK_MAX_GROUPS = 200;
/** A hand-edited link is read up to this many ids, so a huge one costs bounded time. */
const DECODE_MAX_GROUPS = 2000;

/**
 * The open groups a link names: everything open but the root, shallowest first (any first `n` of them are a closed
 * tree: every group's parent comes before it), up to `max`.
 */
export function openGroupsForLink(tree: Pick<TreeState, 'rootId' | 'expanded' | 'parentOf'>, max = LINK_MAX_GROUPS): string[] {
  const open = [...tree.expanded].filter((id) => id !== tree.rootId);
  const depth = new Map(open.map((id) => [id, ancestorsOf(tree, id).length]));
  open.sort((a, b) => depth.get(a)! - depth.get(b)! || (a < b ? -1 : a > b ? 1 : 0));
  return open.length > max ? open.slice(0, max) : open;
}

// Separators are characters URLSearchParams leaves as they are (`*`, `.`), so the hash stays short and readable;
// a `*` or `%` inside an id is escaped first.
const escapeId = (text: string) => text.replace(/[%*]/g, (c) => (c === '%' ? '%25' : '%2A'));
const unescapeId = (text: string) => text.replace(/%(25|2A)/g, (m) => (m === '%25' ? '%' : '*'));

/**
 * Front coding over the sorted ids: each is written as the length of the prefix it shares with the previous one,
 * `.`, and the rest (`DefaultModel*14.layers.1.mlp…`). msprobe ids share long dotted prefixes, so this is several
 * times shorter than the ids themselves.
 */
export function encodeGroups(ids: Iterable<string>): string {
  const sorted = [...new Set(ids)].sort();
  let previous = '';
  return sorted
    .map((id) => {
      let shared = 0;
      while (shared < id.length && shared < previous.length && id[shared] === previous[shared]) shared++;
      previous = id;
      return `${shared}.${escapeId(id.slice(shared))}`;
    })
    .join('*');
}

/** The ids of encodeGroups' text; a malformed entry ends the list (the ids before it stay). */
export function decodeGroups(text: string | null): string[] {
  if (!text) return [];
  const out: string[] = [];
  let previous = '';
  for (const token of text.split('*', DECODE_MAX_GROUPS)) {
    const match = /^(\d{1,5})\./.exec(token);
    if (!match || Number(match[1]) > previous.length) break;
    const id = previous.slice(0, Number(match[1])) + unescapeId(token.slice(match[0].length));
    if (id === '') break;
    out.push(id);
    previous = id;
  }
  return out;
}

/** `x_y_k`: pixels to a tenth, scale to six digits, so a restored view lands within a pixel of the original. */
export function encodeView(view: View): string {
  const px = (n: number) => String(Math.round(n * 10) / 10);
  return `${px(view.x)}_${px(view.y)}_${Number(view.k.toPrecision(6))}`;
}

export function decodeView(text: string | null): View | null {
  if (!text) return null;
  const parts = text.split('_');
  if (parts.length !== 3 || !parts.every((p) => /^-?\d{1,9}(\.\d{1,9})?(e-?\d{1,3})?$/.test(p))) return null;
  const [x, y, k] = parts.map(Number);
  return k > 0 ? { x, y, k: clampScale(k) } : null;
}
