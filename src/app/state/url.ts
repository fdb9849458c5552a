import type { GraphFileFormat, Side } from '../../core/api/types.js';
import type { Lang } from './appStore.js';
import { decodeGroups, decodeView, emptyPaneLink, encodeGroups, encodeView, type PaneLink } from './viewLink.js';

/**
 * The view as a link: `#graphs?run=…&tag=…&format=…&step=…&rank=…&micro=…&side=…&node=…&pos=…&open.npu=…&view.npu=…
 * &open.bench=…&view.bench=…&lang=…`. Pure parse/format so it is unit-tested without a browser; urlSync.ts applies it
 * to the store and writes it back. The selection's counterpart is not written: it is read from the node's
 * matched_node_link on restore (msprobe-format.md §7), as when the node is clicked.
 */
export interface HashState {
  page: 'graphs';
  run: string | null;
  tag: string | null;
  /** `vis` | `db`: which of a same-name `.vis` / `.vis.db` pair; null = the server's choice (omitted). */
  format: GraphFileFormat | null;
  /** `.vis.db` step and rank; null = the file's first (written by omitting the key). */
  step: number | null;
  rank: number | null;
  /** -1 = ALL (written by omitting the key). */
  micro: number;
  side: Side;
  node: string | null;
  /** The node's child index at each split group on its path (Selection.positions); [] = none. */
  pos: number[];
  /** Each side's open groups and viewport (viewLink.ts); empty = not carried (older links open what `node` needs). */
  panes: Record<Side, PaneLink>;
  lang: Lang | null;
  /** The comparison overlay's `ov=` text (state/overlayLink.ts, issue 15); absent = none in the link. */
  overlay?: string | null;
  /** Issue 16's "Dataflow (inferred)" view flag (`dataflow=1`); absent = off. */
  dataflow?: boolean;
}

export const emptyHashState: HashState = {
  page: 'graphs',
  run: null,
  tag: null,
  format: null,
  step: null,
  rank: null,
  micro: -1,
  side: 'npu',
  node: null,
  pos: [],
  panes: { npu: emptyPaneLink, bench: emptyPaneLink },
  lang: null,
};

const SIDES: readonly Side[] = ['npu', 'bench'];

function intOrNull(text: string | null): number | null {
  if (text === null || !/^-?\d{1,9}$/.test(text)) return null;
  return Number(text);
}

function positionList(text: string | null): number[] {
  if (!text) return [];
  const parts = text.split(',');
  return parts.every((p) => /^\d{1,10}$/.test(p)) ? parts.map(Number) : [];
}

/**
 * Ours is `#graphs?run=…`; TensorBoard writes `#graphs&run=…&tag=…` (its page name, then the parameters joined by
 * `&`). Either opens the same view: the query starts at the first `?` or `&` after the page name.
 */
export function parseHash(hash: string): HashState {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  const q = body.search(/[?&]/);
  const params = new URLSearchParams(q >= 0 ? body.slice(q + 1) : '');
  const microText = params.get('micro');
  const micro = microText === null || microText === '' || microText.toLowerCase() === 'all' ? -1 : Number(microText);
  const lang = params.get('lang');
  const format = params.get('format');
  return {
    page: 'graphs',
    run: params.get('run'),
    tag: params.get('tag'),
    format: HASH_FORMATS.includes(format as GraphFileFormat) ? (format as GraphFileFormat) : null,
    step: intOrNull(params.get('step')),
    rank: intOrNull(params.get('rank')),
    micro: Number.isInteger(micro) && micro >= -1 ? micro : -1,
    side: params.get('side') === 'bench' ? 'bench' : 'npu',
    node: params.get('node') || null,
    pos: positionList(params.get('pos')),
    panes: {
      npu: { open: decodeGroups(params.get('open.npu')), view: decodeView(params.get('view.npu')) },
      bench: { open: decodeGroups(params.get('open.bench')), view: decodeView(params.get('view.bench')) },
    },
    lang: lang === 'en' || lang === 'zh-CN' ? lang : null,
    ...(params.get('ov') !== null ? { overlay: params.get('ov') } : {}),
    ...(params.get('dataflow') === '1' ? { dataflow: true } : {}),
  };
}

const HASH_FORMATS: readonly GraphFileFormat[] = ['vis', 'db', 'tfevents', 'graphdef', 'onnx'];

export function formatHash(state: HashState): string {
  const params = new URLSearchParams();
  if (state.run !== null) params.set('run', state.run);
  if (state.tag !== null) params.set('tag', state.tag);
  if (state.format !== null) params.set('format', state.format);
  if (state.step !== null) params.set('step', String(state.step));
  if (state.rank !== null) params.set('rank', String(state.rank));
  if (state.micro >= 0) params.set('micro', String(state.micro));
  if (state.dataflow) params.set('dataflow', '1');
  if (state.node !== null) {
    params.set('side', state.side);
    params.set('node', state.node);
    if (state.pos.length > 0) params.set('pos', state.pos.join(','));
  }
  for (const side of SIDES) {
    const pane = state.panes[side];
    if (pane.open.length > 0) params.set(`open.${side}`, encodeGroups(pane.open));
    if (pane.view) params.set(`view.${side}`, encodeView(pane.view));
  }
  if (state.lang !== null) params.set('lang', state.lang);
  if (state.overlay) params.set('ov', state.overlay);
  const qs = params.toString();
  return `#${state.page}${qs ? `?${qs}` : ''}`;
}
