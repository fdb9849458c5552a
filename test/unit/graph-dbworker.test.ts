import Database from 'better-sqlite3';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { RowPacker, unpackRows } from '../../server/graph/dbRowCodec.js';
import { openDbRowTarget } from '../../server/graph/dbWorker.js';
import { readDumpDirForBuild } from '../../server/graph/readDumpDir.js';
import { VisDbFile, VisDbWriter } from '../../server/graph/writeDb.js';
import { buildGraph } from '../../src/core/build/buildGraph.js';
import { pagingByMicroStep } from '../../src/core/build/microSteps.js';
import { compareGraphs } from '../../src/core/compare/compareGraphs.js';
import { configRow } from '../../src/core/formats/visDb.js';
import { repoRoot } from '../helpers/shared.js';
import { readDb } from './graphGolden.js';

// Long runs write the .vis.db on a worker thread (dbWorker.ts): the rows cross as packed buffers, the thread
// inserts them. The file must be the one the in-thread writer makes, and a failure must come back as an error.

// Under the repository, so that the bundle finds better-sqlite3 in node_modules.
const work = path.join(repoRoot, 'node_modules/.cache', `graph-dbworker-test-${process.pid}`);
let script = '';

beforeAll(async () => {
  mkdirSync(work, { recursive: true });
  await build({
    entryPoints: [path.join(repoRoot, 'server/graph/dbWriterWorker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: path.join(work, 'worker'),
    logLevel: 'warning',
  });
  script = path.join(work, 'worker/dbWriterWorker.js');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function writeBoth(writer: VisDbWriter): Promise<void> {
  const out = path.join(work, 'dumps');
  generateDumps({ layers: 2, ranks: 2, bench: true, seed: 31, out, log: () => {} });
  for (const rank of [0, 1]) {
    const side = (which: string) => buildGraph(readDumpDirForBuild(path.join(out, which, `rank${rank}`)), { era: 'db', rank }).graph;
    const npu = side('npu');
    const bench = side('bench');
    const outcome = compareGraphs(npu, bench, { mode: 'summary', fuzzy: false, layerMapping: null, overflowCheck: false });
    const microSteps = pagingByMicroStep(npu, bench, 'db');
    await writer.addGraph(npu, { source: 'NPU', step: 0, rank, md5Mode: false });
    await writer.addGraph(bench, { source: 'Bench', step: 0, rank, md5Mode: false });
    await writer.addConfig(
      configRow({
        compare: true,
        task: outcome.task,
        toolTip: outcome.toolTip,
        microSteps,
        overflowCheck: false,
        nodeColors: outcome.colors as never,
        rankList: [0, 1],
        stepList: [0],
      }),
    );
    await writer.updateDistributed(npu, { source: 'NPU', step: 0, rank });
  }
  await writer.finish();
}

describe('the .vis.db writer thread', () => {
  it('writes the file the in-thread writer writes', async () => {
    const here = path.join(work, 'here.vis.db');
    const there = path.join(work, 'there.vis.db');
    await writeBoth(new VisDbWriter(new VisDbFile(here)));
    await writeBoth(new VisDbWriter(openDbRowTarget(there, script)));
    const a = readDb(here);
    const b = readDb(there);
    expect(b.nodes.size).toBeGreaterThan(500);
    expect([...b.schema].sort()).toEqual([...a.schema].sort());
    expect(b.config).toEqual(a.config);
    expect([...b.stacks]).toEqual([...a.stacks]);
    expect([...b.nodes.keys()]).toEqual([...a.nodes.keys()]);
    for (const [id, row] of a.nodes) expect(b.nodes.get(id), id).toEqual(row);
  });

  it('flushes as it goes (syncEvery) without changing the file', async () => {
    const plain = path.join(work, 'plain.vis.db');
    const synced = path.join(work, 'synced.vis.db');
    await writeBoth(new VisDbWriter(new VisDbFile(plain)));
    const file = new VisDbFile(synced, { indexesFirst: true, syncEvery: 16 << 10 });
    await writeBoth(new VisDbWriter(file));
    expect(file.syncs).toBeGreaterThan(0);
    const a = readDb(plain);
    const b = readDb(synced);
    expect([...b.nodes.keys()]).toEqual([...a.nodes.keys()]);
    for (const [id, row] of a.nodes) expect(b.nodes.get(id), id).toEqual(row);
    expect([...b.stacks]).toEqual([...a.stacks]);
  });

  it('reports what writing failed with', async () => {
    const target = openDbRowTarget(path.join(work, 'no-such-dir/x.vis.db'), script);
    await expect(Promise.resolve(target.finish())).rejects.toThrow(/unable to open|directory|SQLITE_CANTOPEN/i);
  });
});

describe('packed row batches', () => {
  it('come back exactly as given', () => {
    const rows: Array<Array<string | number | null>> = [
      ['NPU_0_0_Module.a', 'NPU_0_0', 0, 'Module.a', '0', '', '', null, null, 0, '["x"]'],
      ['名字_é', '\u0000\ud83d\ude00', -0, NaN, Infinity, -Infinity, 1.5e-300, 2 ** 53, '', 'x'.repeat(100_000), 'ü'.repeat(70)],
      [],
    ];
    const packer = new RowPacker(64);
    for (const row of rows) packer.add(row);
    const back = unpackRows(packer.take());
    expect(back.length).toBe(rows.length);
    for (let i = 0; i < rows.length; i++) {
      expect(back[i].length).toBe(rows[i].length);
      rows[i].forEach((v, k) => expect(Object.is(back[i][k], v), `${i}.${k}`).toBe(true));
    }
    packer.add(['after take']);
    expect(unpackRows(packer.take())).toEqual([['after take']]);
  });

  it('hand back the columns asked for as UTF-8 bytes, which the insert stores as text', () => {
    const packer = new RowPacker(64);
    const asBytes = [false, true, true, true];
    packer.add(['a', '{"k": "\\u00e9"}', 'é✓', null], asBytes);
    packer.add(['b', '', 'x'.repeat(5000), 'y'], asBytes);
    const back = unpackRows(packer.take());
    expect(back[0][0]).toBe('a');
    expect(Buffer.isBuffer(back[0][1])).toBe(true);
    expect((back[0][1] as Buffer).toString('utf8')).toBe('{"k": "\\u00e9"}');
    expect((back[0][2] as Buffer).toString('utf8')).toBe('é✓');
    expect(back[0][3]).toBeNull();
    expect((back[1][1] as Buffer).length).toBe(0);
    expect((back[1][2] as Buffer).toString('utf8')).toBe('x'.repeat(5000));
    // the node insert casts these columns: bytes bound there are stored as TEXT, equal to the string
    const file = path.join(work, 'bytes.vis.db');
    const db = new VisDbFile(file);
    const row = (id: string | Buffer, input: string | Buffer) =>
      [id, 'NPU_0_0', 0, id, '0', '', input, null, null, 0, input, 's', '', '{}', 0, input, input, 'NPU', null, 0, 0] as never;
    db.node(row('a', Buffer.from('{"x": "é"}')));
    db.node(row('b', '{"x": "é"}'));
    db.node(row(Buffer.from('Module.线性.0'), ''));
    db.finish();
    const check = new Database(file, { readonly: true });
    const got = check
      .prepare(
        'SELECT id, node_name, sub_nodes, typeof(id) t0, typeof(sub_nodes) t1, typeof(matched_node_link) t2, typeof(input_data) t3, typeof(output_data) t4 FROM tb_nodes ORDER BY rowid',
      )
      .all();
    check.close();
    const text = { t0: 'text', t1: 'text', t2: 'text', t3: 'text', t4: 'text' };
    expect(got).toEqual([
      { id: 'a', node_name: 'a', sub_nodes: '{"x": "é"}', ...text },
      { id: 'b', node_name: 'b', sub_nodes: '{"x": "é"}', ...text },
      { id: 'Module.线性.0', node_name: 'Module.线性.0', sub_nodes: '', ...text },
    ]);
  });
});
