import { describe, expect, it } from 'vitest';
import type { MatchFailure } from '../../src/core/api/overlay.js';
import { sameMetric, type TensorMetrics } from '../../src/core/compare/tensorMetrics.js';
import { compareReal, OverlayGraph, planMatch, planUnmatch, unmatchedRealData, type MatchGraph, type MatchNode, type TensorLookup } from '../../src/core/match/index.js';

/**
 * The real-tensor (`all`) side of the match engine (src/core/match/realCompare.ts) on hand-made items: what it asks
 * the tensor reader for, how file items are read back for msprobe's rules (§3.8's NaN/inf and 0-d tensor cases), and
 * that an unmatch takes exactly the added cells away. The end-to-end check against the `graph` command's own output
 * is test/server/overlay-real-tensor.test.ts.
 */

const X = 'Functional.linear.0.forward';

function tensor(name: string, extra: Record<string, string> = {}): Record<string, string> {
  return { type: 'torch.Tensor', dtype: 'torch.float32', shape: '[4, 4]', Max: '1.0', Min: '-1.0', Mean: '0.0', Norm: '2.0', requires_grad: 'False', data_name: `${name}.npy`, ...extra };
}

function side(id: string, outputs: Record<string, Record<string, string>> = { [`${id}.output.0`]: tensor(`${id}.output.0`) }) {
  return {
    id,
    inputData: { [`${id}.input.0`]: tensor(`${id}.input.0`), [`${id}.input.1`]: { value: 'null' } },
    outputData: outputs,
  };
}

/** Every tensor pair compares with these ratios: the input's 0.9, the output's 0.6 (index 0.9 − 0.6). */
const metrics = (thousandth: number): TensorMetrics => ({
  cosine: 0.99,
  eucDist: 0.5,
  maxAbsErr: 0.25,
  maxRelativeErr: 0.125,
  oneThousandth: thousandth,
  fiveThousandths: 1,
  message: '',
});

function lookup(answer: (npu: unknown, bench: unknown) => TensorMetrics | MatchFailure | undefined): TensorLookup & { asked: unknown[] } {
  const asked: unknown[] = [];
  return {
    asked,
    metrics(npu, bench) {
      asked.push([npu, bench]);
      return answer(npu, bench);
    },
  };
}

const byName = lookup((npu) => metrics(String(npu).includes('.output.') ? 0.6 : 0.9));

describe('compareReal', () => {
  it('asks for each row’s tensor pair by data_name, and waits until they are read', () => {
    const none = lookup(() => undefined);
    const r = compareReal(side(X), side(X), none);
    // The None argument's row has no file on either side ("-1"); it is asked too (msprobe's "unsupported" row).
    expect(r).toEqual({
      ok: 'pending',
      needs: [
        { npu: `${X}.input.0.npy`, bench: `${X}.input.0.npy` },
        { npu: '-1', bench: '-1' },
        { npu: `${X}.output.0.npy`, bench: `${X}.output.0.npy` },
      ],
    });
  });

  it('a pair whose tensors cannot be read fails with the reader’s reason', () => {
    expect(compareReal(side(X), side(X), lookup(() => 'tensorsUnreachable'))).toEqual({ ok: false, reason: 'tensorsUnreachable' });
  });

  it('writes the six cells and Requires_grad Consistent as the writer formats them, after the file’s own keys', () => {
    const r = compareReal(side(X), side(X), lookup((npu) => (npu === '-1' ? sameMetric('unsupported', '') : metrics(String(npu).includes('.output.') ? 0.6 : 0.9))));
    if (r.ok !== true) throw new Error(JSON.stringify(r));
    expect(r.outputData[`${X}.output.0`]).toEqual({
      ...tensor(`${X}.output.0`),
      Cosine: '0.99',
      EucDist: '0.5',
      MaxAbsErr: '0.25',
      MaxRelativeErr: '0.125',
      'One Thousandth Err Ratio': '0.6',
      'Five Thousandths Err Ratio': '1.0',
      'Requires_grad Consistent': 'True',
    });
    // A None argument is not annotated (no Max, §3.3).
    expect(r.inputData[`${X}.input.1`]).toEqual({ value: 'null' });
    // min over inputs − min over outputs (§3.8), a Python float.
    expect(r.precisionIndex).toBeCloseTo(0.3, 12);
    expect(r.precisionIsInt).toBe(false);
    // Unmatching takes exactly the added cells away.
    expect(unmatchedRealData(r.outputData)).toEqual(side(X).outputData);
    expect(unmatchedRealData(r.inputData)).toEqual(side(X).inputData);
  });

  it('a JSON-era item (with `state`) gets no Requires_grad Consistent, as its writer drops it', () => {
    const legacy = side(X, { [`${X}.output.0`]: tensor(`${X}.output.0`, { state: 'output' }) });
    const r = compareReal(legacy, legacy, byName);
    if (r.ok !== true) throw new Error(JSON.stringify(r));
    expect(Object.keys(r.outputData[`${X}.output.0`])).not.toContain('Requires_grad Consistent');
    expect(Object.keys(r.outputData[`${X}.output.0`])).toContain('Cosine');
  });

  it('an output whose Max is inf or nan makes the index the int 1; a 0-d tensor’s is passed over', () => {
    const inf = side(X, { [`${X}.output.0`]: tensor(`${X}.output.0`, { Max: 'inf' }) });
    const r = compareReal(inf, side(X), byName);
    expect(r).toMatchObject({ ok: true, precisionIndex: 1, precisionIsInt: true });
    // A 0-d tensor (shape [] written "[]") is skipped by the index, NaN and all: only the input's ratio is left.
    const zeroD = side(X, { [`${X}.output.0`]: tensor(`${X}.output.0`, { Max: 'nan', shape: '[]' }) });
    expect(compareReal(zeroD, side(X), byName)).toMatchObject({ ok: true, precisionIndex: 0, precisionIsInt: true });
  });
});

/** A two-node graph per side: a module X with one child, both unmatched. */
function graph(): MatchGraph {
  const node = (id: string, upnode: string | null, subnodes: string[]): MatchNode => ({
    ...side(id),
    nodeType: upnode === null ? 0 : 1,
    upnode,
    subnodes,
    matchedNodeLink: [],
    precisionIndex: null,
  });
  const M = 'Module.fc.Linear.forward.0';
  const nodes = new Map([M, X].map((id) => [id, id === M ? node(M, null, [X]) : node(X, M, [])]));
  return { node: (_side, id) => nodes.get(id) };
}

describe('planMatch on real-tensor files', () => {
  it('is refused without a tensor reader, as the original refuses `all` files', () => {
    expect(planMatch(graph(), 'all', 'Module.fc.Linear.forward.0', 'Module.fc.Linear.forward.0').ops[0]).toMatchObject({ ok: false, reason: 'taskNotSupported' });
  });

  it('a draft lists every pair the op reaches (children too), then the real plan matches them; unmatch restores', () => {
    const M = 'Module.fc.Linear.forward.0';
    const draft = planMatch(graph(), 'all', M, M, { withChildren: true, tensors: lookup(() => undefined) });
    expect(draft.pending.map((p) => p.npu)).toEqual([`${M}.input.0.npy`, '-1', `${M}.output.0.npy`, `${X}.input.0.npy`, '-1', `${X}.output.0.npy`]);
    const plan = planMatch(graph(), 'all', M, M, { withChildren: true, tensors: byName });
    expect(plan.pending).toEqual([]);
    expect(plan.done).toBe(2);
    const view = new OverlayGraph(graph());
    view.apply(plan);
    expect(view.node('npu', X)!.outputData[`${X}.output.0`]).toHaveProperty('Cosine', '0.99');
    view.apply(planUnmatch(view, 'all', M, M, { withChildren: true, tensors: byName }));
    for (const id of [M, X]) {
      expect(view.node('npu', id)!.outputData).toEqual(graph().node('npu', id)!.outputData);
      expect(view.node('npu', id)!.matchedNodeLink).toEqual([]);
      expect(view.node('npu', id)!.precisionIndex).toBeNull();
    }
  });
});
