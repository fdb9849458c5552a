import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runGraphCommand } from '../../server/graph/runGraph.js';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from './graphGolden.js';

// What the original viewer (tb_graph_ascend) needs from our files (msprobe-format.md §7), checked on a
// multi-step, multi-rank compare run and a build run from test/fixtures/graph.
const fixtures = path.join(repoRoot, 'test/fixtures/graph');
const out = tempDir('viewer-rules');
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

async function run(compareJson: string, format: 'vis' | 'db', sub: string) {
  return runGraphCommand({ inputPath: path.join(fixtures, 'golden', compareJson, 'compare.json'), outputPath: path.join(out, sub), format, quiet: true, baseDir: fixtures });
}

describe('viewer reading rules', () => {
  it('db: one file whose rows the viewer’s queries can walk', async () => {
    const { files } = await run('multistep_compare', 'db', 'db');
    expect(files).toHaveLength(1);
    const file = files[0];
    expect(path.basename(file)).toMatch(/^[a-zA-Z0-9_\-.]+$/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('select id, graph_type, task, step_list, rank_list from tb_config').all()).toEqual([
        { id: '1', graph_type: 'compare', task: 'summary', step_list: '[0, 1, 2]', rank_list: '[0, 1]' },
      ]);
      const graphs = db.prepare('select step, rank, data_source, count(*) n from tb_nodes group by step, rank, data_source').all();
      expect(graphs).toHaveLength(8);
      // one root per graph, found by up_node = ''
      expect(db.prepare("select count(*) n from tb_nodes where up_node = ''").get()).toEqual({ n: 8 });
      // node details join tb_stack: every row must find its stack
      expect(db.prepare('select count(*) n from tb_nodes n left join tb_stack s on n.stack_id = s.id where s.id is null').get()).toEqual({ n: 0 });
      for (const r of db.prepare('select sub_nodes, matched_node_link, micro_step_id from tb_nodes').all() as Array<Record<string, unknown>>) {
        expect(r.sub_nodes === '' || Array.isArray(JSON.parse(r.sub_nodes as string))).toBe(true);
        expect(Array.isArray(JSON.parse(r.matched_node_link as string))).toBe(true);
        expect(typeof r.micro_step_id).toBe('number');
      }
      // children ordered by node_order come back in subnodes order
      const root = db.prepare("select sub_nodes from tb_nodes where up_node = '' and step = 0 and rank = 0 and data_source = 'NPU'").get() as { sub_nodes: string };
      const kids = db.prepare("select node_name from tb_nodes where up_node = 'DefaultModel' and step = 0 and rank = 0 and data_source = 'NPU' order by node_order").all();
      expect(kids.map((k) => (k as { node_name: string }).node_name)).toEqual(JSON.parse(root.sub_nodes));
    } finally {
      db.close();
    }
  });

  it('vis: string ToolTip, arrays of string stacks, reachable subnodes, files per step and rank', async () => {
    const { files } = await run('multistep_compare', 'vis', 'vis');
    expect(files.map((f) => path.basename(f).replace(/_\d{14}\.vis$/, ''))).toEqual([
      'compare_step0_rank0',
      'compare_step0_rank1',
      'compare_step1_rank0',
      'compare_step2_rank0',
    ]);
    for (const file of files) {
      expect(fs.statSync(file).mode & 0o777).toBe(0o640);
      const vis = JSON.parse(fs.readFileSync(file, 'utf8'));
      expect(typeof vis.ToolTip).toBe('string');
      expect(typeof JSON.parse(vis.ToolTip)).toBe('object');
      for (const side of ['NPU', 'Bench']) {
        const nodes = vis[side].node;
        expect(nodes[vis[side].root].upnode).toBe('None');
        for (const n of Object.values(nodes) as Array<Record<string, unknown>>) {
          expect((n.stack_info as unknown[]).every((s) => typeof s === 'string')).toBe(true);
          for (const c of n.subnodes as string[]) expect(nodes[c].upnode).toBe(n.id);
        }
      }
    }
  });

  it('build db: node_colors "null", no tool tip, only the NPU side', async () => {
    const { files } = await run('lm_pytorch_build', 'db', 'build');
    const db = new Database(files[0], { readonly: true });
    try {
      expect(db.prepare('select graph_type, task, tool_tip, node_colors from tb_config').get()).toEqual({
        graph_type: 'build',
        task: '',
        tool_tip: null,
        node_colors: 'null',
      });
      expect(db.prepare('select distinct data_source from tb_nodes').all()).toEqual([{ data_source: 'NPU' }]);
    } finally {
      db.close();
    }
  });
});
