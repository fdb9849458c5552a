import { describe, expect, it } from 'vitest';
import { emptyHashState, formatHash, parseHash } from '../../src/app/state/url.js';

/** Issue 16: links as TensorBoard writes them (`#graphs&run=…&tag=…`) open the same view as ours (`#graphs?run=…`). */
describe('parseHash on TensorBoard links', () => {
  const run = 'name1/train';
  const tag = 'events.out.tfevents.1.vm#graph_def';
  const tbLink = `#graphs&run=${encodeURIComponent(run)}&tag=${encodeURIComponent(tag)}`;

  it('reads run and tag from TensorBoard\'s `#graphs&run=…&tag=…`', () => {
    const s = parseHash(tbLink);
    expect([s.page, s.run, s.tag]).toEqual(['graphs', run, tag]);
  });

  it('reads `#graphs?run=…` (run only) and ours with every key, the same as TensorBoard\'s spelling', () => {
    expect(parseHash('#graphs?run=.').run).toBe('.');
    expect(parseHash('#graphs?run=.').tag).toBeNull();
    const ours = formatHash({ ...emptyHashState, run, tag, format: 'tfevents', node: 'a/b', lang: 'zh-CN' });
    expect(ours.startsWith('#graphs?')).toBe(true);
    const tbSpelt = ours.replace('#graphs?', '#graphs&');
    expect(parseHash(tbSpelt)).toEqual(parseHash(ours));
    expect(parseHash(ours)).toMatchObject({ run, tag, format: 'tfevents', node: 'a/b', lang: 'zh-CN' });
  });

  it('reads nothing from a bare page name, with or without a trailing separator', () => {
    for (const h of ['#graphs', '#graphs&', '#graphs?', '']) expect(parseHash(h)).toEqual(emptyHashState);
  });
});
