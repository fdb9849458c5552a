import { describe, expect, it } from 'vitest';
import type { ColorBucket, Task } from '../../../src/core/api/types.js';
import { bucketLabel, taskMeaningKey } from '../../../src/app/controls/bucketLabel.js';
import { splitRatioAt, MIN_PANE_PX } from '../../../src/app/controls/Splitter.js';
import { loadVis } from './visNode.js';

/** The file's `Colors` object as the server hands it over (`ColorBucket[]`, file order). */
function colorsOf(relative: string): ColorBucket[] {
  const colors = loadVis(relative).Colors as Record<string, { value: number[] | string; description: string }>;
  return Object.entries(colors).map(([color, b]) => ({ color, value: b.value, description: b.description }));
}

describe('colour legend labels', () => {
  it('labels the summary buckets of a real file as half-open ranges, the last closed at 1, then unmatched', () => {
    const labels = colorsOf('compare/synth_2layer.vis').map((b) => bucketLabel(b, 'summary'));
    expect(labels).toEqual([
      { key: 'legend.range', vars: { lo: 0, hi: 0.2 } },
      { key: 'legend.range', vars: { lo: 0.2, hi: 0.4 } },
      { key: 'legend.range', vars: { lo: 0.4, hi: 0.6 } },
      { key: 'legend.range', vars: { lo: 0.6, hi: 0.8 } },
      { key: 'legend.rangeClosed', vars: { lo: 0.8, hi: 1 } },
      { key: 'legend.unmatched' },
    ]);
  });

  it('reads md5 exact buckets as pass / differ and legacy string buckets as unmatched or text', () => {
    expect(bucketLabel({ color: '#FFFCF3', value: [1, 1], description: '' }, 'md5')).toEqual({ key: 'legend.md5Pass' });
    expect(bucketLabel({ color: '#FF704D', value: [0, 0], description: '' }, 'md5')).toEqual({ key: 'legend.md5Diff' });
    expect(bucketLabel({ color: '#FF704D', value: [0.5, 0.5], description: '' }, 'summary')).toEqual({
      key: 'legend.exact',
      vars: { v: 0.5 },
    });
    expect(bucketLabel({ color: '#C7C7C7', value: '无匹配节点', description: '' }, 'summary')).toEqual({ key: 'legend.unmatched' });
    expect(bucketLabel({ color: '#123456', value: 'odd', description: '' }, 'summary')).toEqual({ text: 'odd' });
  });

  it('explains each task differently', () => {
    const tasks: Task[] = ['summary', 'md5', 'all', 'structure', ''];
    expect(new Set(tasks.map(taskMeaningKey)).size).toBe(tasks.length);
    expect(taskMeaningKey(loadVis('compare/synth_2layer.vis').task as Task)).toBe('legend.task.summary');
  });
});

describe('splitter', () => {
  it('follows the pointer and keeps both panes at least MIN_PANE_PX wide', () => {
    expect(splitRatioAt(600, 100, 1000)).toBe(0.5);
    expect(splitRatioAt(110, 100, 1000)).toBe(MIN_PANE_PX / 1000);
    expect(splitRatioAt(2000, 100, 1000)).toBe(1 - MIN_PANE_PX / 1000);
    expect(splitRatioAt(150, 100, 300)).toBe(0.5);
  });
});
