import { describe, expect, it } from 'vitest';
import { pickLang } from '../../server/i18n/pickLang.js';
import { naturalCompare } from '../../server/logdir/naturalSort.js';
import { splitGraphFileName } from '../../server/logdir/scanLogdir.js';
import { sniffVis } from '../../server/logdir/sniffVis.js';

describe('naturalCompare', () => {
  it('numbers compare numerically, text case-insensitively, order is total', () => {
    const names = ['rank10', 'rank2', 'Rank1', 'rank1', 'compare_step10_rank0', 'compare_step9_rank0', 'a', 'b01', 'b1'];
    names.push('step99999999999999999999', 'step100000000000000000000');
    expect([...names].sort(naturalCompare)).toEqual([
      'a',
      'b1',
      'b01',
      'compare_step9_rank0',
      'compare_step10_rank0',
      'Rank1',
      'rank1',
      'rank2',
      'rank10',
      'step99999999999999999999',
      'step100000000000000000000',
    ]);
  });
});

describe('splitGraphFileName', () => {
  it.each([
    ['build_1.vis', { tag: 'build_1', format: 'vis' }],
    ['compare.vis.db', { tag: 'compare', format: 'db' }],
    ['x.vis.config', null],
    ['x.vis.db-wal', null],
    ['.vis', null],
    ['.hidden.vis', null],
    ['notes.txt', null],
  ])('%s', (name, expected) => {
    expect(splitGraphFileName(name)).toEqual(expected);
  });
});

describe('sniffVis', () => {
  const sniff = (text: string) => sniffVis(text, text.slice(-256), Buffer.byteLength(text));
  it.each([
    ['{\n    "root": "DefaultModel",\n "node": {}}', 'build'],
    ['{\n    "NPU": {"root": "x"}, "Bench": {}}', 'compare'],
    ['\ufeff  {"ToolTip": "{\\"root\\": \\"x\\"}", "NPU": {}}', 'compare'],
    ['{"ToolTip": "x", "node": {"NPU": 1}, "root": "r"}', 'build'],
    ['{"Colors": {"NPU": {}}, "x": 1}', null],
  ])('%s → %s', (text, type) => {
    expect(sniff(text)).toEqual({ graphType: type, problem: null });
  });
  it('reports empty, non-object and truncated files', () => {
    expect(sniff('').problem).toBe('empty file');
    expect(sniff('   \n').problem).toMatch(/no JSON content/);
    expect(sniff('[1]').problem).toMatch(/starts with "\["/);
    expect(sniff('{"root": "x", "node": {').problem).toMatch(/truncated/);
  });
});

describe('pickLang', () => {
  it.each([
    ['zh-CN', undefined, 'zh-CN'],
    ['en', 'zh-CN', 'en'],
    ['fr', 'zh-TW;q=0.5, en;q=0.9', 'en'],
    [undefined, 'fr, zh;q=0.8', 'zh-CN'],
    [undefined, 'fr', 'en'],
    [undefined, undefined, 'en'],
    [['zh-CN'], undefined, 'en'],
  ])('query %j, Accept-Language %j → %s', (query, header, lang) => {
    expect(pickLang(query, header, 'en')).toBe(lang);
  });
});
