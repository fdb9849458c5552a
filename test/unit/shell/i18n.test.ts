import { describe, expect, it } from 'vitest';
import { en } from '../../../src/app/i18n/en.js';
import { translate } from '../../../src/app/i18n/i18n.js';
import { zhCN } from '../../../src/app/i18n/zhCN.js';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('UI strings', () => {
  it('defines every English key in Chinese, non-empty, with the same placeholders', () => {
    expect(Object.keys(zhCN).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en) as Array<keyof typeof en>) {
      expect(zhCN[key].trim(), key).not.toBe('');
      expect(placeholders(zhCN[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it('fills placeholders and leaves unknown ones visible', () => {
    expect(translate('en', 'info.npuNode', { id: 'Module.a' })).toBe('NPU node: Module.a');
    expect(translate('zh-CN', 'info.npuNode', { id: 'Module.a' })).toBe('调试侧节点：Module.a');
    expect(translate('en', 'info.npuNode')).toBe('NPU node: {id}');
  });
});
