import { describe, expect, it } from 'vitest';
import { emptyHashState, formatHash, parseHash, type HashState } from '../../../src/app/state/url.js';

describe('hash links', () => {
  it('round-trips every field, including ids and run paths that need escaping', () => {
    const state: HashState = {
      page: 'graphs',
      run: 'exp 1/rank_0',
      tag: 'compare_20261125220639',
      format: 'db',
      step: 3,
      rank: 0,
      micro: 2,
      side: 'bench',
      node: 'Tensor.__add__.0.forward&x=1#frag',
      pos: [1500, 7],
      panes: {
        npu: { open: ['Module.a.b.forward.0', 'Module.a.forward.0'], view: { x: -12.5, y: 40, k: 0.75 } },
        bench: { open: [], view: null },
      },
      lang: 'zh-CN',
    };
    const hash = formatHash(state);
    expect(hash.startsWith('#graphs?')).toBe(true);
    expect(hash).not.toContain('#frag');
    expect(parseHash(hash)).toEqual(state);
  });

  it('writes ALL by omitting micro and leaves side out without a node', () => {
    const hash = formatHash({ ...emptyHashState, run: 'a', tag: 'b', pos: [4], lang: 'en' });
    expect(hash).toBe('#graphs?run=a&tag=b&lang=en');
    expect(formatHash({ ...emptyHashState, run: 'a', tag: 'b', step: 2, rank: 1, node: 'X', pos: [1234] })).toBe(
      '#graphs?run=a&tag=b&step=2&rank=1&side=npu&node=X&pos=1234',
    );
  });

  it('reads the documented short form and tolerates junk', () => {
    expect(parseHash('#graphs?run=r&tag=t&micro=0&node=DefaultModel')).toMatchObject({
      run: 'r',
      tag: 't',
      micro: 0,
      side: 'npu',
      node: 'DefaultModel',
      lang: null,
    });
    expect(parseHash('#graphs?micro=ALL').micro).toBe(-1);
    expect(parseHash('#graphs?micro=-1').micro).toBe(-1);
    expect(parseHash('#graphs?micro=1.5&side=left&lang=fr').micro).toBe(-1);
    expect(parseHash('#graphs?side=left&lang=fr')).toMatchObject({ side: 'npu', lang: null });
    expect(parseHash('')).toMatchObject({ run: null, tag: null, node: null });
    expect(parseHash('#graphs?node=').node).toBeNull();
    expect(parseHash('#graphs?step=x&rank=1.5&pos=1,a')).toMatchObject({ step: null, rank: null, pos: [] });
    expect(parseHash('#graphs?step=0&rank=7&pos=12,400')).toMatchObject({ step: 0, rank: 7, pos: [12, 400] });
  });
});
