import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphFileError } from '../../server/store/graphStore.js';
import { VisJsonStore } from '../../server/store/visJson/visJsonStore.js';
import { LEGACY_COMPARE_META } from '../helpers/legacyCompare.js';
import { repoRoot } from '../helpers/shared.js';
import { expectStoreMatchesFile } from '../helpers/visOracle.js';

const fixtures = path.join(repoRoot, 'test/fixtures/vis');
const read = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');
const open = (name: string) => new VisJsonStore(read(name), { file: name, run: '.', tag: name.replace(/\.vis$/, '') });

describe('VisJsonStore on fixture files', () => {
  for (const name of [
    'builder_build-202507.vis',
    'multistep_compare-202507.vis',
    'lm_pt_vs_pt_compare-202507.vis',
    'lm_pytorch_build-202501.vis',
    'mock_compare_statis_graph.vis',
    'mock_single_statis_graph.vis',
  ]) {
    it(`${name}: every node and child list equals the file`, () => {
      const { nodes } = expectStoreMatchesFile(open(name), read(name));
      expect(nodes).toBeGreaterThan(0);
    });
  }
});

describe('legacy compare file (msprobe-format.md §5.2)', () => {
  const store = open('mock_compare_statis_graph.vis');
  const meta = store.meta();

  it('meta: counts, micro steps, upper-cased colour keys, grey string value, decoded tooltips', () => {
    expect(meta).toMatchObject({ ...LEGACY_COMPARE_META, steps: [0], ranks: [0] });
    expect(meta.colors.map((c) => c.color)).toEqual(['#FFFCF3', '#FFEDBE', '#FFDC7F', '#FFC62E', '#FF704D', '#C7C7C7']);
    expect(meta.colors[0].value).toEqual([0, 0.2]);
    expect(meta.colors[5].value).toBe('无匹配节点');
    expect({ ...meta.toolTips }).toEqual({ shape: '数' });
  });

  it('micro filter on the root children uses the string micro_step_id values', () => {
    const ids = (micro?: number) => store.children({ side: 'npu', micro })!.children.map((c) => c.id);
    const all = [
      'arg0_1_0',
      'Test.maxpoolMaxPool2.maxpoolpo.tt.ee',
      'Test.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.tt.ee',
      'output_0',
    ];
    expect(ids()).toEqual(all);
    expect(ids(-1)).toEqual(all);
    expect(ids(3)).toEqual([all[2], all[3]]);
    expect(ids(0)).toEqual([all[1]]);
    expect(ids(4)).toEqual([]);
    // Bench root children carry no micro step: shown in every step.
    expect(store.children({ side: 'bench', micro: 4 })!.children).toHaveLength(4);
  });

  it('strips N___/B___ link prefixes and keeps HTML-looking ids as data', () => {
    const d = store.node({ side: 'npu', nodeId: 'Test.add_0_withlonglonglonglonglonglonglonglongname.tt.ee' })!;
    expect(d.matchedNodeLink).toEqual([
      'AddThree_0',
      'Test.maxpoolMaxPool2.maxpoolpo.tt.ee',
      'AddOne_0',
      'Test.add_0_withlonglonglonglonglonglonglonglongname.tt.ee',
    ]);
    expect(d.path).toEqual(['AddThree_0', 'Test.maxpoolMaxPool2.maxpoolpo.tt.ee', 'AddOne_0']);
    const html = store.node({ side: 'npu', nodeId: '<a>add_51111</a>' })!;
    expect(html.precisionIndex).toBe(1);
    expect(html.upnode).toBe('AddOne_0');
  });

  it('a root whose upnode names no node ("root") has no parent', () => {
    const root = store.node({ side: 'bench', nodeId: 'AddThree_0' })!;
    expect(root.upnode).toBeNull();
    expect(root.path).toEqual([]);
    expect(root.matchedNodeLink).toEqual(['AddThree_0']);
  });

  it('overflow level and matched_distributed come through', () => {
    const maxpool = store.node({ side: 'npu', nodeId: 'Test.maxpoolMaxPool2.maxpoolpo.tt.ee' })!;
    expect(maxpool.overflowLevel).toBe('medium');
    expect(maxpool.microStepId).toBe(0);
    const arg = store.node({ side: 'npu', nodeId: 'arg0_1_0' })!;
    expect((arg.matchedDistributed as { communications_type: string }).communications_type).toBe('send');
  });

  it('unknown node → undefined on either side', () => {
    expect(store.node({ side: 'bench', nodeId: '<a>add_51111</a>' })).toBeUndefined();
    expect(store.children({ side: 'npu', nodeId: 'nope' })).toBeUndefined();
  });
});

describe('legacy single-graph file (msprobe-format.md §5.3)', () => {
  const store = open('mock_single_statis_graph.vis');
  it('is a build file with no colours, OverflowCheck defaulting to true', () => {
    const meta = store.meta();
    expect(meta.graphType).toBe('build');
    expect(meta.colors).toEqual([]);
    expect(meta.overflowCheck).toBe(true);
    expect(meta.nodeCounts).toEqual({ npu: 17 });
    expect(store.children({ side: 'bench' })).toBeUndefined();
  });
  it('skips the 38 dangling children of Apis_Between_Modules.0', () => {
    const c = store.children({ side: 'npu', nodeId: 'Apis_Between_Modules.0' })!;
    expect(c.children.map((x) => x.id)).toEqual([0, 1, 2, 3].map((i) => `Tensor.__api__${i}.forward`));
    expect(store.node({ side: 'npu', nodeId: 'Apis_Between_Modules.0' })!.childCount).toBe(4);
  });
});

describe('current build file', () => {
  it('reads OverflowCheck false and the micro step of the root child', () => {
    const store = open('builder_build-202507.vis');
    expect(store.meta()).toMatchObject({ graphType: 'build', task: '', overflowCheck: false, microSteps: 1 });
    const [child] = store.children({ side: 'npu' })!.children;
    expect(child).toEqual({
      id: 'Module1',
      nodeType: 0,
      precisionIndex: null,
      overflowLevel: null,
      matchedNodeLink: [],
      childCount: 1,
      microStepId: 0,
    });
  });
});

const node = (id: string, extra: Record<string, unknown> = {}) => ({ id, node_type: 0, subnodes: [], data: {}, ...extra });
const buildText = (nodes: Record<string, unknown>, root = 'R') => JSON.stringify({ root, node: nodes });

describe('tolerance and errors', () => {
  it('NaN, Infinity and strings in precision_index', () => {
    const text = buildText({
      R: node('R', { subnodes: ['a', 'b', 'c', 'd'] }),
      a: node('a', { data: { precision_index: '__NAN__' } }),
      b: node('b', { data: { precision_index: '__INF__' } }),
      c: node('c', { data: { precision_index: '0.25' } }),
      d: node('d', { data: { precision_index: 0 } }),
    })
      .replace('"__NAN__"', 'NaN')
      .replace('"__INF__"', 'Infinity');
    const store = new VisJsonStore(text, { file: 'x.vis', run: '.', tag: 'x' });
    expect(store.children({ side: 'npu' })!.children.map((c) => c.precisionIndex)).toEqual([null, null, 0.25, 0]);
  });

  it('repeated children and cycles do not loop or duplicate', () => {
    const text = buildText({
      R: node('R', { subnodes: ['a', 'a', 'missing'] }),
      a: node('a', { subnodes: ['b'] }),
      b: node('b', { subnodes: ['a', 'R'] }),
    });
    const store = new VisJsonStore(text, { file: 'x.vis', run: '.', tag: 'x' });
    expect(store.children({ side: 'npu' })!.children.map((c) => c.id)).toEqual(['a']);
    expect(store.node({ side: 'npu', nodeId: 'b' })!.path).toEqual(['R', 'a']);
  });

  it.each([
    ['truncated', read('builder_build-202507.vis').slice(0, 300), /builder\.vis: line \d+:\d+: .*truncated/],
    ['not JSON', 'hello world', /builder\.vis: line 1:1: unexpected 'h'/],
    ['an array', '[1, 2]', /top level is not a JSON object/],
    ['no graph keys', '{"a": 1}', /no "NPU" \(compare\) or "root"\/"node"/],
    ['compare without Bench', JSON.stringify({ NPU: JSON.parse(buildText({ R: node('R') })) }), /"Bench" is missing/],
    ['root not in node', buildText({ A: node('A') }), /root "R" of the top level is not in its "node" object/],
    ['node not an object', JSON.stringify({ root: 'R', node: [] }), /no "node" object/],
  ])('%s → GraphFileError naming the file', (_label, text, pattern) => {
    let caught: unknown;
    try {
      new VisJsonStore(text, { file: 'builder.vis', run: '.', tag: 'builder' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(GraphFileError);
    expect((caught as GraphFileError).file).toBe('builder.vis');
    expect((caught as Error).message).toMatch(pattern);
    expect((caught as Error).message).not.toContain('\n');
  });
});
