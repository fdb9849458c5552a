import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Side } from '../../src/core/api/types.js';
import { VisDbStore } from '../../server/store/visDb/visDbStore.js';
import { describeShared, sharedDataDir } from '../helpers/shared.js';

/**
 * The `.vis.db` store against msprobe's own output: every golden database, compared with its `.vis.db.json` dump
 * (the same tables as JSON), and the database's folder left exactly as it was.
 */

type Row = Record<string, any>;
interface Dump {
  tb_config: Row[];
  tb_stack: Record<string, string[]>;
  graphs: Record<string, Row[]>;
}

function goldenDbs(): string[] {
  const golden = path.join(sharedDataDir()!, 'golden');
  return readdirSync(golden).flatMap((c) => {
    const dir = path.join(golden, c, 'db');
    try {
      return readdirSync(dir).filter((f) => f.endsWith('.vis.db')).map((f) => path.join(dir, f));
    } catch {
      return [];
    }
  });
}

/** Names, sizes, mtimes and content hashes of everything in the folder. */
function snapshot(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((f) => {
      const p = path.join(dir, f);
      const st = statSync(p);
      return `${f} ${st.size} ${st.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`;
    });
}

const strip = (s: string) => s.replace(/^[NB]___/, '');

describeShared('VisDbStore on every golden .vis.db', () => {
  const files = goldenDbs();
  it('finds the golden databases', () => expect(files.length).toBeGreaterThanOrEqual(11));

  for (const file of files) {
    it(path.relative(path.join(sharedDataDir()!, 'golden'), file), () => {
      const dump = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Dump;
      const before = snapshot(path.dirname(file));
      const store = new VisDbStore(file, { file: path.basename(file), run: '.', tag: 'x' });
      try {
        const config = dump.tb_config[0];
        const meta = store.meta();
        expect(meta.format).toBe('db');
        expect(meta.graphType).toBe(config.graph_type);
        expect(meta.task).toBe(config.task);
        expect(meta.microSteps).toBe(config.micro_steps);
        expect(meta.overflowCheck).toBe(config.overflow_check === 1);
        expect(meta.steps).toEqual(config.step_list);
        expect(meta.ranks).toEqual(config.rank_list);
        expect(meta.toolTips).toEqual(config.tool_tip ?? {});
        expect(meta.colors.map((c) => c.color)).toEqual(Object.keys(config.node_colors ?? {}));

        let checked = 0;
        for (const [key, rows] of Object.entries(dump.graphs)) {
          const [step, rank, source] = key.split('/');
          const side: Side = source === 'NPU' ? 'npu' : 'bench';
          const g = { step: Number(step), rank: Number(rank) };
          const byName = new Map(rows.map((r) => [r.node_name as string, r]));
          const kids = (name: string) =>
            rows.filter((r) => r.up_node === name).sort((a, b) => a.node_order - b.node_order).map((r) => r.node_name);
          const root = rows.find((r) => r.up_node === '')!;
          const m = store.meta(g);
          expect(m.nodeCounts[side]).toBe(rows.length);
          expect(m.roots[side]).toBe(root.node_name);
          expect(store.children({ side, ...g })!.children.map((c) => c.id)).toEqual(kids(root.node_name));

          for (const r of rows) {
            const d = store.node({ side, nodeId: r.node_name, ...g })!;
            expect(d.id).toBe(r.node_name);
            expect(d.nodeType).toBe(Number(r.node_type));
            expect(d.precisionIndex).toBe(r.precision_index);
            expect(d.overflowLevel).toBe(r.overflow_level);
            expect(d.microStepId).toBe(r.micro_step_id);
            expect(d.matchedNodeLink).toEqual(r.matched_node_link.map(strip));
            expect(d.inputData).toEqual(r.input_data);
            expect(d.outputData).toEqual(r.output_data);
            expect(d.stackInfo).toEqual(dump.tb_stack[r.stack_id]);
            expect(d.parallelMergeInfo).toEqual(r.parallel_merge_info === '' ? [] : r.parallel_merge_info);
            const children = store.children({ side, nodeId: r.node_name, ...g })!;
            expect(children.children.map((c) => c.id)).toEqual(kids(r.node_name));
            expect(children.total).toBe(children.children.length);
            expect(d.childCount).toBe(children.total);
            // The path walks up_node to the root.
            const path: string[] = [];
            for (let up = r.up_node; up; up = byName.get(up)!.up_node) path.unshift(up);
            expect(d.path).toEqual(path);
            checked++;
          }
          // Search finds every node by its full id, in execution order with its path.
          const all = store.search({ side, query: '', limit: 100_000, ...g });
          expect(all.total).toBe(rows.length);
          expect(all.results[0].id).toBe(root.node_name);
          const preorder: string[] = [];
          const walk = (n: string) => {
            preorder.push(n);
            kids(n).forEach(walk);
          };
          walk(root.node_name);
          expect(all.results.map((x) => x.id)).toEqual(preorder);
          // The same order from the graph's pre-order ranks (used when matches are many).
          const ranked = new VisDbStore(file, { file: 'x', run: '.', tag: 'x', pathSortMax: 0 });
          try {
            expect(ranked.search({ side, query: '', limit: 100_000, ...g })).toEqual(all);
            const q = { side, precision: [[0, 0.2]] as Array<[number, number]>, unmatched: false, overflow: [], leaves: true, limit: 5, ...g };
            expect(ranked.filter(q)).toEqual(store.filter(q));
          } finally {
            ranked.close();
          }
          const unmatched = store.filter({ side, precision: [], unmatched: true, overflow: [], leaves: false, limit: 100_000, ...g });
          expect(unmatched.results.map((x) => x.id)).toEqual(
            preorder.filter((n) => byName.get(n)!.matched_node_link.length === 0),
          );
        }
        expect(checked).toBeGreaterThan(0);
      } finally {
        store.close();
      }
      expect(snapshot(path.dirname(file))).toEqual(before);
    });
  }
});

describeShared('.vis.db batch reads and the unmatched seek', () => {
  it('summaries and outputs by id equal node(); unmatched lists are the same through index6 and without it', () => {
    let seen = 0;
    for (const file of goldenDbs()) {
      const dir = mkdtempSync(path.join(tmpdir(), 'probeboard-visdb-'));
      try {
        const copy = path.join(dir, 'g.vis.db');
        copyFileSync(file, copy);
        const first = new VisDbStore(copy, { file: 'g', run: '.', tag: 'g' });
        const meta = first.meta();
        const answers: string[] = [];
        const g = { step: meta.steps[0], rank: meta.ranks[0] };
        try {
          for (const side of Object.keys(meta.roots) as Side[]) {
            const ids = first.search({ side, query: '', limit: 100_000, ...g }).results.map((r) => r.id);
            const asked = [...ids, 'no.such.node'];
            const summaries = first.summaries({ side, ids: asked, ...g });
            const items = first.items({ side, ids: asked, ...g });
            expect(summaries.at(-1)).toBeUndefined();
            ids.forEach((id, k) => {
              const { id: i, nodeType, precisionIndex, overflowLevel, matchedNodeLink, childCount, microStepId, inputData, outputData } = first.node({ side, nodeId: id, ...g })!;
              expect(summaries[k]).toEqual({ id: i, nodeType, precisionIndex, overflowLevel, matchedNodeLink, childCount, microStepId });
              expect(items[k]).toEqual({ inputData, outputData });
            });
            answers.push(JSON.stringify(first.filter({ side, precision: [], unmatched: true, overflow: [], leaves: false, limit: 100_000, ...g })));
          }
        } finally {
          first.close();
        }
        // A `modified` value other than 0/1 (a hand-made file): the seek would miss rows, so the plain scan answers.
        const db = new Database(copy);
        db.prepare('UPDATE tb_nodes SET modified = 2 WHERE rowid = (SELECT min(rowid) FROM tb_nodes)').run();
        db.close();
        const second = new VisDbStore(copy, { file: 'g', run: '.', tag: 'g' });
        try {
          const again = (Object.keys(meta.roots) as Side[]).map((side) =>
            JSON.stringify(second.filter({ side, precision: [], unmatched: true, overflow: [], leaves: false, limit: 100_000, ...g })),
          );
          expect(again).toEqual(answers);
        } finally {
          second.close();
        }
        seen++;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    expect(seen).toBeGreaterThan(3);
  });
});
