import { describe, expect, it } from 'vitest';
import { checkChildren } from '../../../src/app/api/answers.js';
import { dataflowApplies, dataflowParam } from '../../../src/app/commands/dataflow.js';
import { emptyHashState, formatHash, parseHash } from '../../../src/app/state/url.js';

/** The viewer's side of issue 16's inferred dataflow: the flag, its link parameter, and the answer checker. */

describe('the Dataflow (inferred) flag', () => {
  it('applies to msprobe files only, and asks for dataflow=1 only when on', () => {
    expect(dataflowApplies('vis')).toBe(true);
    expect(dataflowApplies('db')).toBe(true);
    for (const f of ['tfevents', 'graphdef', 'onnx', undefined] as const) expect(dataflowApplies(f), String(f)).toBe(false);
    expect(dataflowParam(true, 'vis')).toBe(1);
    expect(dataflowParam(false, 'vis')).toBeUndefined();
    // A TensorBoard graph's edges are in the file: nothing to ask for.
    expect(dataflowParam(true, 'onnx')).toBeUndefined();
  });

  it('is kept in the link as dataflow=1, and absent when off', () => {
    const on = { ...emptyHashState, run: 'a', tag: 'b', dataflow: true };
    expect(formatHash(on)).toBe('#graphs?run=a&tag=b&dataflow=1');
    expect(parseHash(formatHash(on))).toEqual(on);
    expect(formatHash({ ...on, dataflow: false })).toBe('#graphs?run=a&tag=b');
    expect(parseHash('#graphs?run=a&tag=b')).not.toHaveProperty('dataflow');
    expect(parseHash('#graphs?run=a&tag=b&dataflow=yes')).not.toHaveProperty('dataflow');
  });
});

describe('checkChildren with inferred edges', () => {
  const body = {
    node: 'M',
    total: 2,
    children: [
      { id: 'A', nodeType: 0, precisionIndex: null, overflowLevel: null, matchedNodeLink: [], childCount: 0, microStepId: null },
      { id: 'B', nodeType: 0, precisionIndex: null, overflowLevel: null, matchedNodeLink: [], childCount: 0, microStepId: null },
    ],
    edges: [
      { from: 'A', to: 'B', data: 2, control: 0, labels: ['torch.float32[2,4]'], inferred: true, extra: 'dropped' },
      { from: 'A', to: 'B', data: 1, control: 0, labels: [], inferred: 'yes' },
      { from: 'A', to: 'B', data: 'x', control: 0, labels: [] },
    ],
  };

  it('keeps `inferred: true` and drops what is not an edge', () => {
    expect(checkChildren(body, 'f').edges).toEqual([
      { from: 'A', to: 'B', data: 2, control: 0, labels: ['torch.float32[2,4]'], inferred: true },
      { from: 'A', to: 'B', data: 1, control: 0, labels: [] },
    ]);
  });

  it('keeps why a group has no inferred edges', () => {
    const skipped = { ...body, edges: [], dataflowSkipped: { reason: 'tooManyChildren', limit: 2000 } };
    expect(checkChildren(skipped, 'f').dataflowSkipped).toEqual({ reason: 'tooManyChildren', limit: 2000 });
    expect(checkChildren({ ...skipped, dataflowSkipped: { reason: 'other', limit: 2000 } }, 'f')).not.toHaveProperty('dataflowSkipped');
    expect(checkChildren(body, 'f')).not.toHaveProperty('dataflowSkipped');
  });
});
