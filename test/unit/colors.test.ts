import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ColorBucket, NodeSummary } from '../../src/core/api/types.js';
import { bucketColor, UNMATCHED_FALLBACK, unmatchedColor } from '../../src/core/colors/buckets.js';
import {
  BENCH_BORDER,
  darken,
  NEUTRAL_FILL,
  nodeFill,
  nodeStroke,
  SELECTED_BORDER,
  WHITE,
} from '../../src/core/colors/nodePaint.js';
import { repoRoot } from '../helpers/shared.js';

/** The file's `Colors` object → the API's bucket list (file order kept), as the server sends it. */
function buckets(name: string): ColorBucket[] {
  const file = path.join(repoRoot, 'test/fixtures/colors', name);
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { value: number[] | string; description: string }>;
  return Object.entries(raw).map(([color, b]) => ({ color, value: b.value, description: b.description }));
}

const summary = buckets('summary-colors.json');
const legacy = buckets('legacy-colors.json');
const md5 = buckets('md5-colors.json');

function node(over: Partial<NodeSummary>): NodeSummary {
  return {
    id: 'Module.a.A.forward.0',
    nodeType: 0,
    precisionIndex: 0.5,
    overflowLevel: null,
    matchedNodeLink: ['DefaultModel', 'Module.a.A.forward.0'],
    childCount: 2,
    microStepId: null,
    ...over,
  };
}

describe('bucketColor (summary buckets of a real file)', () => {
  it('reads the fixture as six buckets ending in grey', () => {
    expect(summary.map((b) => b.color)).toEqual(['#FFFCF3', '#FFEDBE', '#FFDC7F', '#FFC62E', '#FF704D', '#C7C7C7']);
  });
  it('puts 0 in the first bucket', () => expect(bucketColor(summary, 0)).toBe('#FFFCF3'));
  it('is half-open at the boundaries: 0.2 belongs to the second bucket, 0.19999 to the first', () => {
    expect(bucketColor(summary, 0.2)).toBe('#FFEDBE');
    expect(bucketColor(summary, 0.19999)).toBe('#FFFCF3');
    expect(bucketColor(summary, 0.4)).toBe('#FFDC7F');
    expect(bucketColor(summary, 0.8)).toBe('#FF704D');
  });
  it('closes the last bucket at exactly 1', () => {
    expect(bucketColor(summary, 1)).toBe('#FF704D');
    expect(bucketColor(summary, 0.9999)).toBe('#FF704D');
  });
  it('gives no colour to NaN or values outside every bucket', () => {
    expect(bucketColor(summary, Number.NaN)).toBeNull();
    expect(bucketColor(summary, 1.5)).toBeNull();
    expect(bucketColor(summary, -0.1)).toBeNull();
  });
  it('never matches the empty (unmatched) bucket', () => {
    expect(bucketColor([{ color: '#C7C7C7', value: [], description: '' }], 0)).toBeNull();
  });
});

describe('bucketColor (md5 buckets [1,1] and [0,0])', () => {
  it('maps 1 to pass and 0 to diff', () => {
    expect(bucketColor(md5, 1)).toBe('#FFFCF3');
    expect(bucketColor(md5, 0)).toBe('#FF704D');
  });
  it('maps values between to nothing', () => expect(bucketColor(md5, 0.5)).toBeNull());
});

describe('unmatchedColor', () => {
  it('finds the [] bucket', () => expect(unmatchedColor(summary)).toBe('#C7C7C7'));
  it('finds the legacy "无匹配节点" bucket', () => {
    const custom = legacy.map((b) => (typeof b.value === 'string' ? { ...b, color: '#ABCDEF' } : b));
    expect(unmatchedColor(custom)).toBe('#ABCDEF');
  });
  it('falls back to grey when the file names none', () => {
    expect(unmatchedColor(summary.slice(0, 5))).toBe(UNMATCHED_FALLBACK);
    expect(unmatchedColor([])).toBe('#C7C7C7');
  });
});

describe('nodeFill', () => {
  const npu = { side: 'npu' as const, graphType: 'compare' as const, colors: summary };
  const bench = { ...npu, side: 'bench' as const };

  it('colours matched NPU nodes by bucket, including the legacy lower-case red', () => {
    expect(nodeFill(node({ precisionIndex: 0 }), npu)).toBe('#FFFCF3');
    expect(nodeFill(node({ precisionIndex: 1 }), npu)).toBe('#FF704D');
    expect(nodeFill(node({ precisionIndex: 0.85 }), { ...npu, colors: legacy })).toBe('#ff704d');
  });
  it('draws matched NPU nodes without a value white (NaN arrives as null)', () => {
    expect(nodeFill(node({ precisionIndex: null }), npu)).toBe(WHITE);
    expect(nodeFill(node({ precisionIndex: Number.NaN }), npu)).toBe(WHITE);
  });
  it('draws unmatched nodes in the unmatched colour on both sides', () => {
    expect(nodeFill(node({ matchedNodeLink: [] }), npu)).toBe('#C7C7C7');
    expect(nodeFill(node({ matchedNodeLink: [], precisionIndex: null }), bench)).toBe('#C7C7C7');
    expect(nodeFill(node({ matchedNodeLink: [] }), { ...npu, colors: [] })).toBe(UNMATCHED_FALLBACK);
  });
  it('draws matched Bench nodes white whatever their value', () => {
    expect(nodeFill(node({ precisionIndex: 1 }), bench)).toBe(WHITE);
  });
  it('draws API and fusion collections white even when unmatched', () => {
    expect(nodeFill(node({ nodeType: 9, precisionIndex: 1 }), npu)).toBe(WHITE);
    expect(nodeFill(node({ nodeType: 8, matchedNodeLink: [] }), npu)).toBe(WHITE);
  });
  it('uses a neutral fill for build files', () => {
    expect(nodeFill(node({ matchedNodeLink: [], precisionIndex: null }), { side: 'npu', graphType: 'build', colors: [] })).toBe(
      NEUTRAL_FILL,
    );
  });
  it('md5: 1 = pass colour, 0 = diff colour', () => {
    const ctx = { ...npu, colors: md5 };
    expect(nodeFill(node({ precisionIndex: 1 }), ctx)).toBe('#FFFCF3');
    expect(nodeFill(node({ precisionIndex: 0 }), ctx)).toBe('#FF704D');
  });
});

describe('nodeStroke', () => {
  it('darkens the NPU fill by 40 per channel', () => {
    expect(darken('#FFFCF3', 40)).toBe('rgb(215,212,203)');
    expect(darken('#FF704D', 40)).toBe('rgb(215,72,37)');
    expect(darken('#fff', 40)).toBe('rgb(215,215,215)');
    expect(darken('rgb(10,20,30)', 40)).toBe('rgb(0,0,0)');
    expect(nodeStroke('#FFEDBE', 'npu', false)).toEqual({ color: 'rgb(215,197,150)', width: 1.5 });
  });
  it('uses grey for Bench and the selection blue, width 2, when highlighted', () => {
    expect(nodeStroke(WHITE, 'bench', false)).toEqual({ color: BENCH_BORDER, width: 1.5 });
    expect(nodeStroke('#FF704D', 'npu', true)).toEqual({ color: SELECTED_BORDER, width: 2 });
    expect(nodeStroke(WHITE, 'bench', true)).toEqual({ color: 'rgb(31,63,207)', width: 2 });
  });
});
