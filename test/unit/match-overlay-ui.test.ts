import { describe, expect, it } from 'vitest';
import type { MatchOp, OpOutcome } from '../../src/core/api/overlay.js';
import type { NodeSummary } from '../../src/core/api/types.js';
import { splitId } from '../../src/core/layout/groupSplit.js';
import {
  activeOps,
  canRedo,
  canUndo,
  EMPTY_DOC,
  lastStep,
  overlayRequest,
  pushStep,
  redo,
  setColorBuckets,
  setMetrics,
  stepReport,
  undo,
  undoRedoKey,
  type OverlayDoc,
} from '../../src/app/commands/matchOps.js';
import { loadedIds, patchSummaries } from '../../src/app/commands/overlayRefresh.js';
import { EMPTY_TREE, type TreeState } from '../../src/app/commands/treeState.js';
import { decodeOverlay, encodeOverlay, LINK_MAX_OVERLAY } from '../../src/app/state/overlayLink.js';
import { graphKey, parseStoredDoc } from '../../src/app/state/overlayStore.js';
import { emptyHashState, formatHash, parseHash } from '../../src/app/state/url.js';
import { paintedColors } from '../../src/app/state/overlayActions.js';

/**
 * Issue 15's browser side without a browser: the overlay doc's undo/redo commands, what is sent to the server, the
 * link's `ov=` text, stored docs read back defensively, and the pane refresh that patches summaries in place.
 */
const op = (npu: string, bench = npu, kind: MatchOp['op'] = 'match', children = true): MatchOp => ({ op: kind, npu, bench, children });

describe('overlay doc commands', () => {
  it('undo and redo move the cursor; a new step drops the redo tail', () => {
    let doc = pushStep(EMPTY_DOC, [op('a')]);
    doc = pushStep(doc, [op('b'), op('c')]);
    expect(activeOps(doc).map((o) => o.npu)).toEqual(['a', 'b', 'c']);
    doc = undo(doc);
    expect(activeOps(doc).map((o) => o.npu)).toEqual(['a']);
    expect(canRedo(doc)).toBe(true);
    expect(activeOps(redo(doc)).map((o) => o.npu)).toEqual(['a', 'b', 'c']);
    doc = pushStep(doc, [op('d')]);
    expect(activeOps(doc).map((o) => o.npu)).toEqual(['a', 'd']);
    expect(canRedo(doc)).toBe(false);
    expect(undo(undo(undo(doc))).cursor).toBe(0);
    expect(canUndo(undo(undo(doc)))).toBe(false);
    expect(pushStep(doc, [])).toBe(doc);
  });

  it('sends nothing for an empty overlay, and all four metrics as the file’s own index', () => {
    expect(overlayRequest(EMPTY_DOC)).toBeNull();
    expect(overlayRequest(setMetrics(EMPTY_DOC, ['NormRelativeErr', 'MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr']))).toBeNull();
    const mean = setMetrics(EMPTY_DOC, ['MeanRelativeErr', 'MaxRelativeErr']);
    expect(overlayRequest(mean)).toEqual({ ops: [], metrics: ['MaxRelativeErr', 'MeanRelativeErr'] });
    expect(setMetrics(mean, [])).toBe(mean);
    // Colours are the browser's alone: they never change what the server computes.
    expect(overlayRequest(setColorBuckets(EMPTY_DOC, [{ color: '#FF4118', value: [0, 1], description: '' }]))).toBeNull();
    expect(overlayRequest(undo(pushStep(EMPTY_DOC, [op('a')])))).toBeNull();
  });

  it('reports the last step: ops whose own pair failed, pairs done, every failure with its reason', () => {
    const doc = pushStep(pushStep(EMPTY_DOC, [op('a')]), [op('x', 'x', 'match', false), op('y', 'y', 'match', false), op('z', 'z', 'match', false), op('w', 'w', 'match', false)]);
    const outcomes: OpOutcome[] = [
      { done: 9, failed: [] },
      { done: 2, failed: [] },
      { done: 0, failed: [{ npu: 'y', bench: 'y', reason: 'notFound' }] },
      // Its partner failed, the pair itself was matched: a success with a failure listed.
      { done: 1, failed: [{ npu: 'z.backward', bench: 'z.backward', reason: 'typeMismatch' }] },
      // Already paired by an earlier entry's partner: nothing to do, nothing wrong.
      { done: 0, failed: [] },
    ];
    const step = lastStep(doc, outcomes);
    expect(step.map((s) => s.op.npu)).toEqual(['x', 'y', 'z', 'w']);
    expect(stepReport(step)).toEqual({
      total: 4,
      succeeded: 3,
      failed: 1,
      pairs: 3,
      failures: [
        { npu: 'y', bench: 'y', reason: 'notFound' },
        { npu: 'z.backward', bench: 'z.backward', reason: 'typeMismatch' },
      ],
      failedPairs: 2,
    });
    expect(lastStep(undo(undo(doc)), outcomes)).toEqual([]);
    // The server lists at most 100 failures per op and counts the rest.
    const many = stepReport([{ op: op('x'), outcome: { done: 0, failed: [{ npu: 'x', bench: 'x', reason: 'notFound' }], failedTotal: 250 } }]);
    expect([many.failed, many.failedPairs, many.failures.length]).toEqual([1, 250, 1]);
  });

  it('binds Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y (⌘ too), never while typing', () => {
    const press = { key: 'z', shiftKey: false, ctrlKey: true, metaKey: false, altKey: false, targetTag: 'BODY', targetEditable: false };
    expect(undoRedoKey(press)).toBe('undo');
    expect(undoRedoKey({ ...press, key: 'Z', shiftKey: true })).toBe('redo');
    expect(undoRedoKey({ ...press, key: 'y' })).toBe('redo');
    expect(undoRedoKey({ ...press, ctrlKey: false, metaKey: true })).toBe('undo');
    expect(undoRedoKey({ ...press, ctrlKey: false })).toBeNull();
    expect(undoRedoKey({ ...press, targetTag: 'INPUT' })).toBeNull();
    expect(undoRedoKey({ ...press, targetEditable: true })).toBeNull();
    expect(undoRedoKey({ ...press, altKey: true })).toBeNull();
  });

  it('paints the editor’s buckets with the file’s grey, and the file’s own while they are invalid or reset', () => {
    const file = [
      { color: '#FFFCF3', value: [0, 0.5], description: 'd' },
      { color: '#ABCDEF', value: [], description: 'unmatched' },
    ];
    const edited = setColorBuckets(EMPTY_DOC, [{ color: '#FF4118', value: [0, 1], description: '' }]);
    expect(paintedColors(edited, file)).toEqual([{ color: '#FF4118', value: [0, 1], description: '' }, file[1]]);
    expect(paintedColors(EMPTY_DOC, file)).toEqual(file);
    const overlapping = setColorBuckets(EMPTY_DOC, [
      { color: '#FF4118', value: [0, 0.6], description: '' },
      { color: '#FFEDBE', value: [0.5, 1], description: '' },
    ]);
    expect(paintedColors(overlapping, file)).toEqual(file);
  });
});

describe('the link’s ov= text', () => {
  const docOf = (...steps: MatchOp[][]): OverlayDoc => steps.reduce((d, s) => pushStep(d, s), EMPTY_DOC);

  it('round-trips ops, metrics and buckets, front-coding same-name pairs to a few characters', () => {
    const doc = setColorBuckets(
      setMetrics(
        docOf(
          [op('Module.layers.0.mlp.MLP.forward.0')],
          [op('Module.layers.0.attn.Attention.forward.0', 'Module.layers.0.attention.Attention.forward.0', 'unmatch', false)],
        ),
        ['MinRelativeErr', 'NormRelativeErr'],
      ),
      [
        { color: '#FF4118', value: [0.5, 1], description: 'x' },
        { color: '#FFFCF3', value: [0, 0.12345], description: '' },
      ],
    );
    const text = encodeOverlay(doc)!;
    expect(text).toBe(
      'M10*CFF4118_0.5_1*CFFFCF3_0_0.12345*c0.Module.layers.0.mlp.MLP.forward.0*33.*u16.attn.Attention.forward.0*19.ention.Attention.forward.0',
    );
    // URLSearchParams leaves every separator as it is: the link stays readable.
    expect(new URLSearchParams({ ov: text }).toString()).toBe(`ov=${text}`);
    const back = decodeOverlay(text)!;
    expect(activeOps(back)).toEqual(activeOps(doc));
    expect(back.metrics).toEqual(['MinRelativeErr', 'NormRelativeErr']);
    expect(back.colors).toEqual([
      { color: '#FF4118', value: [0.5, 1], description: '' },
      { color: '#FFFCF3', value: [0, 0.12345], description: '' },
    ]);
    // Only applied steps travel; redo-able ones stay home.
    expect(encodeOverlay(undo(doc))).toBe('M10*CFF4118_0.5_1*CFFFCF3_0_0.12345*c0.Module.layers.0.mlp.MLP.forward.0*33.');
  });

  it('keeps a config’s entries one undo step', () => {
    const cfg = (npu: string): MatchOp => ({ op: 'config', npu, bench: npu, children: false });
    const doc = docOf([op('a')], [cfg('b'), cfg('c')], [cfg('d')]);
    const text = encodeOverlay(doc)!;
    expect(text).toBe('c0.a*1.*k0.b*1.*k0.c*1.*k0.d*1.');
    const back = decodeOverlay(text)!;
    expect(activeOps(back)).toEqual(activeOps(doc));
    // Consecutive config entries cannot be told apart from one config: they come back as one step.
    expect(back.steps.map((s) => s.length)).toEqual([1, 3]);
  });

  it('escapes * and % in names, carries nothing for an empty doc and leaves out one too long for a link', () => {
    const odd = docOf([op('a*b%2A.c', 'a*b%2A.d')]);
    expect(activeOps(decodeOverlay(encodeOverlay(odd))!)).toEqual(activeOps(odd));
    expect(encodeOverlay(EMPTY_DOC)).toBe('');
    const long = docOf(...Array.from({ length: 40 }, (_, i) => [op(`${'x'.repeat(40)}${i}`, `${'y'.repeat(40)}${i}`)]));
    expect(encodeOverlay(long)).toBeNull();
    expect(LINK_MAX_OVERLAY).toBeLessThan(2000);
  });

  it('reads a hand-edited link up to its first bad token', () => {
    expect(decodeOverlay(null)).toBeNull();
    expect(activeOps(decodeOverlay('c0.A*1.*zz*m0.B*0.B')!).map((o) => o.npu)).toEqual(['A']);
    expect(decodeOverlay('c0.A')!.steps).toEqual([]); // a pair without its Bench name
    expect(decodeOverlay('c9.A*0.A')!.steps).toEqual([]); // shares more than the previous name has
    expect(decodeOverlay('M15')!.metrics).toBeNull();
    expect(decodeOverlay('CFF4118_x_1')!.colors).toBeNull();
    expect(decodeOverlay('C')!.colors).toEqual([]);
  });

  it('is the hash’s ov= parameter, absent when empty', () => {
    const hash = formatHash({ ...emptyHashState, run: 'r', tag: 't', overlay: 'c0.A*1.' });
    expect(hash).toBe('#graphs?run=r&tag=t&ov=c0.A*1.');
    expect(parseHash(hash).overlay).toBe('c0.A*1.');
    expect('overlay' in parseHash('#graphs?run=r&tag=t')).toBe(false);
    expect(formatHash({ ...emptyHashState, run: 'r', overlay: '' })).toBe('#graphs?run=r');
  });
});

describe('stored docs', () => {
  it('are keyed by file and graph, and read back checked', () => {
    expect(graphKey({ run: 'r', tag: 't' })).toBe(graphKey({ run: 'r', tag: 't', format: null, step: null, rank: null }));
    expect(graphKey({ run: 'r', tag: 't', format: 'db', step: 0, rank: 1 })).not.toBe(graphKey({ run: 'r', tag: 't', format: 'db', step: 1, rank: 0 }));
    const doc = setMetrics(undo(pushStep(pushStep(EMPTY_DOC, [op('a')]), [op('b', 'c', 'unmatch', false)])), ['MeanRelativeErr']);
    expect(parseStoredDoc(JSON.stringify(doc))).toEqual(doc);
    expect(parseStoredDoc(null)).toEqual(EMPTY_DOC);
    expect(parseStoredDoc('{not json')).toEqual(EMPTY_DOC);
    expect(parseStoredDoc(JSON.stringify({ steps: 'x' }))).toEqual(EMPTY_DOC);
    // A malformed op drops its step; a cursor past the end is clamped; junk metrics mean all four.
    const junk = parseStoredDoc(JSON.stringify({ steps: [[op('a')], [{ op: 'merge', npu: 'x', bench: 'y' }]], cursor: 9, metrics: ['Nope'], colors: [{ color: 1 }] }));
    expect(junk).toEqual({ steps: [[op('a')]], cursor: 1, metrics: null, colors: null });
  });
});

describe('pane refresh after an overlay change', () => {
  const summary = (id: string, over: Partial<NodeSummary> = {}): NodeSummary => ({
    id,
    nodeType: 1,
    precisionIndex: null,
    overflowLevel: null,
    matchedNodeLink: [],
    childCount: 0,
    microStepId: null,
    ...over,
  });

  it('asks for every file node the tree holds, not the pseudo-groups of a split group or a synthetic group', () => {
    const s1 = splitId('big', 0, 400);
    const tree: Pick<TreeState, 'nodes'> = {
      nodes: new Map([
        ['root', summary('root')],
        ['big', summary('big')],
        [s1, summary(s1)],
        ['b0', summary('b0')],
        ['lost', summary('lost', { synthetic: 'unreachable' })],
      ]),
    };
    expect(loadedIds(tree)).toEqual(['root', 'big', 'b0']);
  });

  it('replaces the loaded summaries’ link and index without marking anything for layout', () => {
    const tree: TreeState = {
      ...EMPTY_TREE,
      rootId: 'root',
      nodes: new Map([
        ['a', summary('a')],
        ['b', summary('b', { precisionIndex: 0.5, matchedNodeLink: ['root', 'b'] })],
      ]),
    };
    const next = patchSummaries(tree, [
      summary('a', { precisionIndex: 0.25, matchedNodeLink: ['root', 'a'] }),
      summary('b', { precisionIndex: 0.5, matchedNodeLink: ['root', 'b'] }),
      summary('unknown', { precisionIndex: 1 }),
    ]);
    expect(next.nodes.get('a')).toEqual(summary('a', { precisionIndex: 0.25, matchedNodeLink: ['root', 'a'] }));
    expect(next.nodes.get('b')).toBe(tree.nodes.get('b'));
    expect(next.nodes.has('unknown')).toBe(false);
    expect(next.dirty).toBe(tree.dirty);
    expect(patchSummaries(tree, [summary('b', { precisionIndex: 0.5, matchedNodeLink: ['root', 'b'] })])).toBe(tree);
    // A precision-only answer (a metric choice) keeps the link and overflow level it does not carry.
    const recoloured = patchSummaries(tree, [{ id: 'b', precisionIndex: 0.75 }]);
    expect(recoloured.nodes.get('b')).toEqual(summary('b', { precisionIndex: 0.75, matchedNodeLink: ['root', 'b'] }));
  });
});
