import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { runGraphCommand, type GraphRunSummary } from '../../server/graph/runGraph.js';

/**
 * Helpers for the golden tests of `probeboard graph` (../shared/data/golden, see its README): run a case
 * in-process into a temp dir and compare with the original tool's output.
 */

export const TS_DATE = new Date(2026, 10, 25, 22, 6, 2);
const TS_NAME = /_\d{14}(\.vis(?:\.db)?)$/;

export interface GoldenCase {
  name: string;
  dir: string;
  compareJson: string;
  layerMapping?: string | true;
  overflowCheck: boolean;
  fuzzyMatch: boolean;
}

/** Golden cases of one kind: compare cases are those whose compare.json has a `bench_path`. */
export function goldenCases(shared: string, kind: 'build' | 'compare'): GoldenCase[] {
  const root = path.join(shared, 'golden');
  // describe.skip still collects its tests: without the data there are simply no cases.
  if (!shared || !fs.existsSync(root)) return [];
  const isCompare = (n: string) => 'bench_path' in JSON.parse(fs.readFileSync(path.join(root, n, 'compare.json'), 'utf8'));
  return fs
    .readdirSync(root)
    .filter((n) => fs.existsSync(path.join(root, n, 'compare.json')) && isCompare(n) === (kind === 'compare'))
    .sort()
    .map((name) => {
      const dir = path.join(root, name);
      const flags = fs.existsSync(path.join(dir, 'flags.txt')) ? fs.readFileSync(path.join(dir, 'flags.txt'), 'utf8').trim().split(/\s+/) : [];
      const lm = flags.indexOf('-lm');
      return {
        name,
        dir,
        compareJson: path.join(dir, 'compare.json'),
        layerMapping: lm < 0 ? undefined : flags[lm + 1] && !flags[lm + 1].startsWith('-') ? path.join(shared, flags[lm + 1]) : true,
        overflowCheck: flags.includes('-oc'),
        fuzzyMatch: flags.includes('-f'),
      };
    });
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `probeboard-${prefix}-`));
}

export async function runCase(c: GoldenCase, shared: string, format: 'vis' | 'db', out: string): Promise<GraphRunSummary> {
  return runGraphCommand({
    inputPath: c.compareJson,
    outputPath: out,
    layerMapping: c.layerMapping,
    overflowCheck: c.overflowCheck,
    fuzzyMatch: c.fuzzyMatch,
    format,
    quiet: true,
    baseDir: shared,
    startedAt: TS_DATE,
  });
}

/** File name without its timestamp: `build_step0_rank1.vis`. */
export function untimed(file: string): string {
  return path.basename(file).replace(TS_NAME, '$1');
}

/** The first difference of two texts, with context, for a readable failure. */
export function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const line = a.slice(0, i).split('\n').length;
  return `line ${line}: ours «${a.slice(Math.max(0, i - 80), i + 80)}» vs golden «${b.slice(Math.max(0, i - 80), i + 80)}»`;
}

export interface DbContent {
  schema: Map<string, string>;
  config: unknown[];
  stacks: Map<string, unknown>;
  nodes: Map<string, Record<string, unknown>>;
}

/** Every table of a .vis.db plus the storage class (`typeof`) of the typed node columns (a copy is opened, so read-only dirs work). */
export function readDb(file: string): DbContent {
  const copyDir = tempDir('dbcopy');
  for (const ext of ['', '-wal', '-shm']) {
    if (fs.existsSync(file + ext)) fs.copyFileSync(file + ext, path.join(copyDir, 'x.db' + ext));
  }
  const db = new Database(path.join(copyDir, 'x.db'), { readonly: true, fileMustExist: true });
  try {
    const schema = new Map<string, string>();
    for (const r of db.prepare("select name, sql from sqlite_master where sql is not null").all() as Array<{ name: string; sql: string }>) {
      schema.set(r.name, r.sql);
    }
    const typed = (table: string) =>
      db.prepare(`select * from ${table}`).all().map((row) => {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(row as Record<string, unknown>)) out[k] = v;
        return out;
      });
    const nodes = new Map<string, Record<string, unknown>>();
    const typeRows = db.prepare(`select id, ${NODE_COLS.map((c) => `typeof(${c}) as t_${c}`).join(', ')} from tb_nodes`).all() as Array<Record<string, unknown>>;
    const typeById = new Map(typeRows.map((r) => [r.id as string, r]));
    for (const r of typed('tb_nodes')) {
      const t = typeById.get(r.id as string)!;
      for (const c of NODE_COLS) r[`type:${c}`] = t[`t_${c}`];
      nodes.set(r.id as string, r);
    }
    const stacks = new Map<string, unknown>();
    for (const r of typed('tb_stack')) stacks.set(r.id as string, r.stack_info);
    return { schema, config: typed('tb_config'), stacks, nodes };
  } finally {
    db.close();
    fs.rmSync(copyDir, { recursive: true, force: true });
  }
}

const NODE_COLS = ['node_order', 'precision_index', 'micro_step_id', 'dump_data_dir', 'up_node', 'sub_nodes'];

/** Row-by-row equality of two .vis.db files; differences are reported per row id. */
export function expectSameDb(ours: DbContent, golden: DbContent, fieldsToSkip: string[] = []): void {
  expect([...ours.schema.entries()].sort()).toEqual([...golden.schema.entries()].sort());
  expect(ours.config).toEqual(golden.config);
  expect(Object.fromEntries(ours.stacks)).toEqual(Object.fromEntries(golden.stacks));
  expect([...ours.nodes.keys()].sort()).toEqual([...golden.nodes.keys()].sort());
  const diffs: string[] = [];
  for (const [id, g] of golden.nodes) {
    const o = ours.nodes.get(id)!;
    for (const k of Object.keys(g)) {
      if (fieldsToSkip.includes(k)) continue;
      if (o[k] !== g[k]) diffs.push(`${id}.${k}: ours ${JSON.stringify(o[k])?.slice(0, 300)} vs golden ${JSON.stringify(g[k])?.slice(0, 300)}`);
    }
  }
  expect(diffs.slice(0, 10)).toEqual([]);
}

/**
 * One test per case and format: `--format vis` must be byte-identical to `vis-202507`, `--format db` must hold
 * the rows of `db/*.vis.db`. `root` mirrors ../shared/data (compare.json paths are relative to it).
 */
export function goldenTests(root: string, kind: 'build' | 'compare', expectedCases: string[]): void {
  const cases = goldenCases(root, kind);
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it(`finds the ${kind} cases`, () => {
    expect(cases.map((c) => c.name)).toEqual(expectedCases);
  });

  for (const c of cases) {
    it(`${c.name}: --format vis is byte-identical to vis-202507`, async () => {
      const out = tempDir('vis');
      dirs.push(out);
      const summary = await runCase(c, root, 'vis', out);
      const goldenDir = path.join(c.dir, 'vis-202507');
      const golden = fs.readdirSync(goldenDir).sort();
      expect(summary.files.map(untimed).sort()).toEqual(golden.map(untimed).sort());
      for (const file of summary.files) {
        const ours = fs.readFileSync(file, 'utf8');
        const theirs = fs.readFileSync(path.join(goldenDir, golden.find((g) => untimed(g) === untimed(file))!), 'utf8');
        expect(firstDifference(ours, theirs)).toBeNull();
      }
    });

    it(`${c.name}: --format db has the golden rows`, async () => {
      const out = tempDir('db');
      dirs.push(out);
      const summary = await runCase(c, root, 'db', out);
      expect(summary.files).toHaveLength(1);
      const goldenDir = path.join(c.dir, 'db');
      const golden = fs.readdirSync(goldenDir).find((f) => f.endsWith('.vis.db'))!;
      expect(untimed(summary.files[0])).toBe(untimed(golden));
      expectSameDb(readDb(summary.files[0]), readDb(path.join(goldenDir, golden)));
    });
  }
}
