import { describe, expect, it } from 'vitest';
import { formatPrecision, middleEllipsis, nodeTypeKey, pageInfo, precisionSwatch, turnPage } from '../../src/app/commands/worstNodes.js';

describe('worst-nodes table helpers', () => {
  it('middle ellipsis keeps both ends of a long name and short names whole', () => {
    const name = 'Cell.network_with_loss.module.language_model.encoder.layers.11.attention.dense.forward.0';
    const cut = middleEllipsis(name, 30);
    expect(Array.from(cut)).toHaveLength(30);
    expect(cut.startsWith('Cell.network_wi')).toBe(true);
    expect(cut.endsWith('ense.forward.0')).toBe(true);
    expect(cut).toContain('…');
    expect(middleEllipsis('Module.fc.Linear.forward.0', 30)).toBe('Module.fc.Linear.forward.0');
    // Two rows that differ only at the end stay distinguishable.
    expect(middleEllipsis(name.replace('forward', 'backward'), 30)).not.toBe(cut);
  });

  it('formats values and finds the file’s swatch (md5 buckets are exact)', () => {
    expect(formatPrecision(0.230769230769)).toBe('0.2308');
    expect(formatPrecision(1)).toBe('1');
    expect(formatPrecision(null)).toBe('');
    const summary = [
      { color: '#FFFCF3', value: [0, 0.2], description: '' },
      { color: '#FF704D', value: [0.8, 1], description: '' },
      { color: '#C7C7C7', value: [], description: '' },
    ];
    expect(precisionSwatch(summary, 1)).toBe('#FF704D');
    expect(precisionSwatch(summary, 0.1)).toBe('#FFFCF3');
    expect(precisionSwatch(summary, null)).toBeNull();
    const md5 = [
      { color: '#FFFCF3', value: [1, 1], description: '' },
      { color: '#FF704D', value: [0, 0], description: '' },
    ];
    expect(precisionSwatch(md5, 0)).toBe('#FF704D');
  });

  it('node types and paging', () => {
    expect([0, 1, 8, 9, 5].map(nodeTypeKey)).toEqual(['worst.type.module', 'worst.type.api', 'worst.type.fusion', 'worst.type.apiList', 'worst.type.other']);
    expect(pageInfo(0, 100, 250)).toEqual({ first: 1, last: 100, prev: false, next: true });
    expect(pageInfo(200, 50, 250)).toEqual({ first: 201, last: 250, prev: true, next: false });
    expect(pageInfo(0, 0, 0)).toEqual({ first: 0, last: 0, prev: false, next: false });
    expect(turnPage(0, 1, 250)).toBe(100);
    expect(turnPage(200, 1, 250)).toBe(200);
    expect(turnPage(0, -1, 250)).toBe(0);
    expect(turnPage(100, -1, 250)).toBe(0);
  });
});
