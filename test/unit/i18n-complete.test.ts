import { describe, expect, it } from 'vitest';
import { opensShortcuts, SHORTCUTS } from '../../src/app/commands/shortcuts.js';
import { parseThemeChoice, resolveTheme } from '../../src/app/commands/theme.js';
import { en, type MessageKey } from '../../src/app/i18n/en.js';
import { zhCN } from '../../src/app/i18n/zhCN.js';

/**
 * Every Chinese string differs from its English one, except true constants: the product name, units and format
 * names, key caps and pure placeholders. A value left in English (the "MicroStep" picker label was one) fails here.
 */
const SAME_IN_BOTH = new Set<MessageKey>([
  'app.title', // product name
  'picker.fileWithFormat', // "{tag}.{ext}"
  'worst.type.api', // "API", as msprobe's docs write it in Chinese too
  'export.svg',
  'export.png',
  'csv.button',
]);

describe('Chinese catalogue', () => {
  it('translates every key whose English text is not a constant', () => {
    const same = (Object.keys(en) as MessageKey[]).filter((k) => zhCN[k] === en[k] && !SAME_IN_BOTH.has(k));
    expect(same).toEqual([]);
  });

  it('keeps the allow-list honest: each entry is still identical and still a key', () => {
    for (const key of SAME_IN_BOTH) {
      expect(key in en, key).toBe(true);
      expect(zhCN[key], key).toBe(en[key]);
    }
  });

  it('says the picker labels and overflow levels in Chinese', () => {
    for (const key of ['picker.micro', 'picker.step', 'picker.rank', 'overflow.medium', 'overflow.high', 'overflow.critical'] as const)
      expect(zhCN[key], key).toMatch(/[\u4e00-\u9fff]/);
  });
});

describe('shortcuts table', () => {
  it('lists every binding the viewer has, each with keys and an action in both languages', () => {
    const ids = SHORTCUTS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ['zoom-keys', 'pan-keys', 'wheel', 'ctrl-wheel', 'double-click', 'right-click', 'enter', 'shift-enter', 'escape', 'help'])
      expect(ids).toContain(id);
    for (const s of SHORTCUTS) {
      expect(en[s.keys], s.id).toBeTruthy();
      expect(zhCN[s.action], s.id).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it('opens on ? except while typing or with Ctrl/Meta/Alt', () => {
    const press = { key: '?', ctrlKey: false, metaKey: false, altKey: false, targetTag: 'BODY', targetEditable: false };
    expect(opensShortcuts(press)).toBe(true);
    expect(opensShortcuts({ ...press, targetTag: 'BUTTON' })).toBe(true);
    expect(opensShortcuts({ ...press, targetTag: 'INPUT' })).toBe(false);
    expect(opensShortcuts({ ...press, targetTag: 'textarea' })).toBe(false);
    expect(opensShortcuts({ ...press, targetTag: 'SELECT' })).toBe(false);
    expect(opensShortcuts({ ...press, targetTag: 'DIV', targetEditable: true })).toBe(false);
    expect(opensShortcuts({ ...press, ctrlKey: true })).toBe(false);
    expect(opensShortcuts({ ...press, key: '/' })).toBe(false);
  });
});

describe('theme choice', () => {
  it('follows the system on auto and a stored choice otherwise; junk in storage means auto', () => {
    expect(resolveTheme('auto', true)).toBe('dark');
    expect(resolveTheme('auto', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
    expect(parseThemeChoice('dark')).toBe('dark');
    expect(parseThemeChoice(null)).toBe('auto');
    expect(parseThemeChoice('purple')).toBe('auto');
  });
});
