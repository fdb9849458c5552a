import type { Side } from '../../core/api/types.js';
import type { Lang } from './appStore.js';

/**
 * The view as a link: `#graphs?run=…&tag=…&micro=…&side=…&node=…&lang=…`. Pure parse/format so it is unit-tested
 * without a browser; urlSync.ts applies it to the store and writes it back.
 */
export interface HashState {
  page: 'graphs';
  run: string | null;
  tag: string | null;
  /** -1 = ALL (written by omitting the key). */
  micro: number;
  side: Side;
  node: string | null;
  lang: Lang | null;
}

export const emptyHashState: HashState = { page: 'graphs', run: null, tag: null, micro: -1, side: 'npu', node: null, lang: null };

export function parseHash(hash: string): HashState {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  const q = body.indexOf('?');
  const params = new URLSearchParams(q >= 0 ? body.slice(q + 1) : '');
  const microText = params.get('micro');
  const micro = microText === null || microText === '' || microText.toLowerCase() === 'all' ? -1 : Number(microText);
  const lang = params.get('lang');
  return {
    page: 'graphs',
    run: params.get('run'),
    tag: params.get('tag'),
    micro: Number.isInteger(micro) && micro >= -1 ? micro : -1,
    side: params.get('side') === 'bench' ? 'bench' : 'npu',
    node: params.get('node') || null,
    lang: lang === 'en' || lang === 'zh-CN' ? lang : null,
  };
}

export function formatHash(state: HashState): string {
  const params = new URLSearchParams();
  if (state.run !== null) params.set('run', state.run);
  if (state.tag !== null) params.set('tag', state.tag);
  if (state.micro >= 0) params.set('micro', String(state.micro));
  if (state.node !== null) {
    params.set('side', state.side);
    params.set('node', state.node);
  }
  if (state.lang !== null) params.set('lang', state.lang);
  const qs = params.toString();
  return `#${state.page}${qs ? `?${qs}` : ''}`;
}
