import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkChildren } from '../../src/app/api/answers.js';
import type { ChildrenResponse, GraphEdge, Side } from '../../src/core/api/types.js';
import { DATAFLOW_MAX_CHILDREN, inferDataflow } from '../../src/core/dataflow/inferEdges.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { VisJsonStore } from '../../server/store/visJson/visJsonStore.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { describeShared, sharedDataDir } from '../helpers/shared.js';
import { WIDE_ID, writeWideVis } from '../helpers/wideVis.js';

/**
 * Issue 16's inferred dataflow through the real server: `children?…&dataflow=1` on real msprobe files (`.vis` read
 * through the streamed index, `.vis.db` through SQLite) answers, for every group of both sides, exactly the edges the
 * core rule (src/core/dataflow/inferEdges.ts) infers from the file's items read independently of the server's
 * stores; all children count whatever the page; a group over the bound answers none and says why.
 */
let tmp: string;
let logdir: string;
let served: ServedApp;

const real = (...parts: string[]) => path.join(sharedDataDir() ?? '', 'real', ...parts);
const RESNET_VIS = real('resnet18_mix_statistics/golden/graph-vis-202507/compare_step0_rank_20261126140403.vis');
const RESNET_DB = real('resnet18_mix_md5/golden/graph-db/compare_20261126140406.vis.db');
const GPT_DB = real('dist2_gpt_mix_statistics/golden/graph-db/compare_20261126140410.vis.db');

const get = (p: string) => rawGet(served.port, p);
const children = async (params: Record<string, string | number>): Promise<ChildrenResponse> => {
  const res = await get(`/api/graph/children?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);
  expect(res.status, res.body).toBe(200);
  return res.json as ChildrenResponse;
};

/** Groups of one side with their children in order and every node's items, as an oracle reads them. */
interface Oracle {
  root: string;
  kids: Map<string, string[]>;
  edges(group: string): GraphEdge[];
}

function visOracle(file: string, side: Side): Oracle {
  const store = new VisJsonStore(readFileSync(file, 'utf8'), { file: 'oracle.vis', run: '.', tag: 'oracle' });
  const kids = new Map<string, string[]>();
  const visit = (id: string) => {
    const list = store.children({ side, nodeId: id })!.children.map((c) => c.id);
    kids.set(id, list);
    list.forEach(visit);
  };
  const root = store.meta().roots[side]!;
  visit(root);
  return {
    root,
    kids,
    edges: (group) => {
      const ids = kids.get(group)!;
      return inferDataflow(store.items({ side, ids }).map((it, k) => it && { id: ids[k], ...it }));
    },
  };
}

/**
 * tb_nodes rows read with plain SQL (msprobe-format.md §4.2), not through server/store/visDb; from the log dir's copy
 * (`rel`), since even a read-only open of a WAL database writes its -shm beside it.
 */
function dbOracle(rel: string, side: Side, step: number, rank: number): Oracle {
  const db = new Database(path.join(logdir, rel), { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare('SELECT node_name, up_node, sub_nodes, input_data, output_data FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?')
      .all(step, rank, side === 'npu' ? 'NPU' : 'Bench') as Array<Record<string, string | null>>;
    const byName = new Map(rows.map((r) => [r.node_name!, r]));
    const root = rows.find((r) => !r.up_node)!.node_name!;
    const kids = new Map<string, string[]>();
    for (const r of rows) kids.set(r.node_name!, JSON.parse(r.sub_nodes || '[]') as string[]);
    return {
      root,
      kids,
      edges: (group) =>
        inferDataflow(
          kids.get(group)!.map((id) => {
            const r = byName.get(id);
            return r && { id, inputData: JSON.parse(r.input_data || '{}'), outputData: JSON.parse(r.output_data || '{}') };
          }),
        ),
    };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-dataflow-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(path.join(logdir, 'wide'), { recursive: true });
  writeWideVis(path.join(logdir, 'wide', 'over.vis'), { children: DATAFLOW_MAX_CHILDREN + 1 });
  writeWideVis(path.join(logdir, 'wide', 'at.vis'), { children: DATAFLOW_MAX_CHILDREN });
  if (sharedDataDir()) {
    mkdirSync(path.join(logdir, 'real'));
    copyFileSync(RESNET_VIS, path.join(logdir, 'real', 'resnet.vis'));
    copyFileSync(RESNET_DB, path.join(logdir, 'real', 'resnet_md5.vis.db'));
    copyFileSync(GPT_DB, path.join(logdir, 'real', 'gpt.vis.db'));
  }
  const appDir = path.join(tmp, 'app');
  mkdirSync(appDir);
  writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><title>probeboard test app</title>');
  const stores = createStoreCache({ cacheDir: path.join(tmp, 'cache'), indexWorkerScript: null, findWorkerScript: null });
  served = await serveApp(createApp({ logdir, appDir, lang: 'en', stores }));
}, 60_000);

afterAll(async () => {
  await served?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Every group of the side answers the oracle's edges, and the client's checker keeps them as sent. */
async function expectEveryGroup(params: Record<string, string | number>, side: Side, oracle: Oracle): Promise<number> {
  let drawn = 0;
  for (const [group, list] of oracle.kids) {
    if (list.length === 0) continue;
    const body = await children({ ...params, side, node: group, dataflow: 1 });
    expect(body.children.map((c) => c.id), group).toEqual(list);
    expect(body.edges, group).toEqual(oracle.edges(group));
    expect(checkChildren(body, 'real').edges, group).toEqual(body.edges);
    expect(body.dataflowSkipped).toBeUndefined();
    drawn += body.edges!.length;
  }
  return drawn;
}

describeShared('children?dataflow=1 on real msprobe files', () => {
  it('a .vis (streamed index): every group of both sides, as the core rule infers from the file', async () => {
    for (const side of ['npu', 'bench'] as const) {
      const drawn = await expectEveryGroup({ run: 'real', tag: 'resnet' }, side, visOracle(RESNET_VIS, side));
      // The totals test/unit/dataflow.test.ts checks against an independent reading of the rule.
      expect(drawn, side).toBe(111);
    }
    const root = await children({ run: 'real', tag: 'resnet', side: 'npu', dataflow: 1 });
    expect(root.edges).toContainEqual({
      from: 'Torch.flatten.0.forward',
      to: 'Module.fc.Linear.forward.0',
      data: 1,
      control: 0,
      labels: ['torch.bfloat16[2,512]'],
      inferred: true,
    });
  });

  it('a .vis.db in md5 mode, and another step and rank of a multi-graph .vis.db', async () => {
    for (const side of ['npu', 'bench'] as const) {
      expect(await expectEveryGroup({ run: 'real', tag: 'resnet_md5' }, side, dbOracle('real/resnet_md5.vis.db', side, 0, 0))).toBeGreaterThan(100);
      expect(await expectEveryGroup({ run: 'real', tag: 'gpt', step: 1, rank: 1 }, side, dbOracle('real/gpt.vis.db', side, 1, 1))).toBeGreaterThan(100);
    }
    const mlp = await children({ run: 'real', tag: 'gpt', step: 1, rank: 1, side: 'npu', node: 'Module.blocks.0.mlp.MLP.forward.0', dataflow: 1 });
    expect(mlp.edges!.map((e) => `${e.from}->${e.to}`)).toEqual([
      'Module.blocks.0.mlp.fc.Linear.forward.0->Module.blocks.0.mlp.act.GELU.forward.0',
      'Module.blocks.0.mlp.act.GELU.forward.0->Module.blocks.0.mlp.out.Linear.forward.0',
    ]);
  });

  it('edges among all the children on every page; none without the flag', async () => {
    const base = { run: 'real', tag: 'resnet', side: 'npu' };
    const all = await children({ ...base, dataflow: 1 });
    expect(all.edges!.length).toBeGreaterThan(5);
    // A page holds two children but the edges are the group's, as for TensorBoard graphs.
    const page = await children({ ...base, offset: 3, limit: 2, dataflow: 1 });
    expect(page.children.map((c) => c.id)).toEqual(all.children.slice(3, 5).map((c) => c.id));
    expect(page.edges).toEqual(all.edges);
    // Asked again (from the answer cache), the same answer.
    expect(await children({ ...base, offset: 3, limit: 2, dataflow: 1 })).toEqual(page);
    const plain = await children(base);
    expect(plain.edges).toBeUndefined();
    expect(plain.children).toEqual(all.children);
    expect((await children({ ...base, dataflow: 0 })).edges).toBeUndefined();
    const bad = await get(`/api/graph/children?run=real&tag=resnet&side=npu&dataflow=yes`);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain('dataflow');
  });
});

it(`a group of more than ${DATAFLOW_MAX_CHILDREN} children answers no edges and says why`, async () => {
  const over = await children({ run: 'wide', tag: 'over', side: 'npu', node: WIDE_ID, offset: 0, limit: 10, dataflow: 1 });
  expect(over.total).toBe(DATAFLOW_MAX_CHILDREN + 1);
  expect(over.edges).toEqual([]);
  expect(over.dataflowSkipped).toEqual({ reason: 'tooManyChildren', limit: DATAFLOW_MAX_CHILDREN });
  expect(checkChildren(over, 'wide/over').dataflowSkipped).toEqual(over.dataflowSkipped);
  const at = await children({ run: 'wide', tag: 'at', side: 'npu', node: WIDE_ID, offset: 0, limit: 10, dataflow: 1 });
  expect(at.total).toBe(DATAFLOW_MAX_CHILDREN);
  expect(at.dataflowSkipped).toBeUndefined();
  // The wide file's nodes carry no items: read, nothing inferred.
  expect(at.edges).toEqual([]);
});
