import { describe, expect, it } from 'vitest';
import { checkNode } from '../../src/app/api/answers.js';

/** Issue 16: a node answer's `tb` block reaches the info panel checked (src/app/api/tbAnswer.ts), not as sent. */
const base = { id: 'y', nodeType: 1, path: [], inputData: {}, outputData: {} };

describe('checkNode keeps a checked tb block', () => {
  it('passes op, device, attributes and run stats through', () => {
    const tb = {
      label: 'y',
      kind: 'op',
      op: 'MatMul',
      domain: null,
      device: '/device:CPU:0',
      attrs: [{ key: 'T', value: 'float32', fullSize: 7, truncated: false }],
      role: null,
      calls: [],
      opCount: 1,
      runStats: [{ tag: 's', step: 7, device: 'cpu', startMicros: 1, opMicros: 40, allMicros: 50, memory: [{ allocator: 'cpu', totalBytes: 1, peakBytes: 2, liveBytes: 3 }], outputs: [{ slot: 0, dtype: 'float32', shape: [2, 3] }], timelineLabel: 'y' }],
    };
    expect(checkNode({ ...base, tb }, 'f').tb).toEqual(tb);
  });

  it('drops bad attributes, coerces bad fields, and leaves msprobe nodes without a block', () => {
    const tb = checkNode({ ...base, tb: { kind: 'weird', op: 5, attrs: [{ key: 'a' }, { key: 'b', value: 'x', fullSize: 'big' }, 'junk'], role: 'boss', calls: [1, 'f'], runStats: 'no' } }, 'f').tb!;
    expect(tb).toEqual({ label: '', kind: 'op', op: null, domain: null, device: null, attrs: [{ key: 'b', value: 'x', fullSize: 1, truncated: false }], role: null, calls: ['f'], opCount: 0 });
    expect('tb' in checkNode(base, 'f')).toBe(false);
    expect('tb' in checkNode({ ...base, tb: 'x' }, 'f')).toBe(false);
  });
});
