import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { buildGraph } from '../../src/core/build/buildGraph.js';
import { pagingByMicroStep } from '../../src/core/build/microSteps.js';
import { compareGraphs } from '../../src/core/compare/compareGraphs.js';
import { matchDistributed } from '../../src/core/compare/distributed.js';
import { buildLayerMapping } from '../../src/core/compare/layerMapping.js';
import { detectDumpMode } from '../../src/core/compare/mode.js';
import { getPrecisionIndex } from '../../src/core/compare/nodeResults.js';
import type { FormatEra } from '../../src/core/formats/formatEra.js';
import { formatItems } from '../../src/core/formats/itemFormat.js';
import { parsePyJson, type PyValue } from '../../src/core/formats/pyJson.js';
import type { Graph, GraphNode } from '../../src/core/model/graph.js';
import { readDumpDir } from '../../server/graph/readDumpDir.js';
import { describeShared, sharedDataDir } from '../helpers/shared.js';

/**
 * The comparison half against the original tool's output: both graphs built with the build side's builder, then
 * matching, compare columns, precision_index, overflow levels, matched_distributed and micro steps checked node by
 * node against the JSON (`vis-202507`) and the SQLite (`db`, dumped as JSON) goldens.
 */

const CASES = [
  'lm_pt_vs_pt_compare',
  'lm_ms_vs_pt_compare',
  'multistep_compare',
  'synth_2layer_compare',
  'synth_2layer_2rank_compare',
  'synth_2layer_compare_oc_grouped_stack',
];

const COMPARE_COLUMNS = new Set([
  'Max diff',
  'Min diff',
  'Mean diff',
  'L2norm diff',
  'MaxRelativeErr',
  'MinRelativeErr',
  'MeanRelativeErr',
  'NormRelativeErr',
  'Requires_grad Consistent',
  'Result',
  'Cosine',
  'EucDist',
  'MaxAbsErr',
  'One Thousandth Err Ratio',
  'Five Thousandths Err Ratio',
]);

interface Unit {
  step: number;
  rank: number;
  npuDir: string;
  benchDir: string;
}

function numbered(dir: string, prefix: string): Array<[number, string]> {
  return readdirSync(dir)
    .filter((n) => new RegExp(`^${prefix}\\d*$`).test(n))
    .map((n): [number, string] => [n === prefix ? 0 : Number(n.slice(prefix.length)), n])
    .sort((a, b) => a[0] - b[0]);
}

function units(npuRoot: string, benchRoot: string): Unit[] {
  if (existsSync(path.join(npuRoot, 'dump.json'))) return [{ step: 0, rank: 0, npuDir: npuRoot, benchDir: benchRoot }];
  const steps = numbered(npuRoot, 'step');
  const stepDirs: Array<[number, string, string]> = steps.length
    ? steps.map(([s, n]) => [s, path.join(npuRoot, n), path.join(benchRoot, n)])
    : [[0, npuRoot, benchRoot]];
  const out: Unit[] = [];
  for (const [step, n, b] of stepDirs) {
    for (const [rank, r] of numbered(n, 'rank')) out.push({ step, rank, npuDir: path.join(n, r), benchDir: path.join(b, r) });
  }
  return out;
}

function readJson(file: string): PyValue {
  return parsePyJson(readFileSync(file, 'utf8'), { mode: 'python', file }) as PyValue;
}

interface Compared {
  unit: Unit;
  npu: Graph;
  bench: Graph;
}

function runCase(caseDir: string, era: FormatEra): Compared[] {
  const data = sharedDataDir()!;
  const cfg = JSON.parse(readFileSync(path.join(caseDir, 'compare.json'), 'utf8')) as Record<string, string>;
  const flags = readFileSync(path.join(caseDir, 'flags.txt'), 'utf8').trim().split(/\s+/).filter(Boolean);
  const lmIndex = flags.indexOf('-lm');
  const yamlFile = lmIndex >= 0 && flags[lmIndex + 1] && !flags[lmIndex + 1].startsWith('-') ? path.join(data, flags[lmIndex + 1]) : null;
  const overflowCheck = flags.includes('-oc');
  const compared: Compared[] = [];
  for (const unit of units(path.join(data, cfg.npu_path), path.join(data, cfg.bench_path))) {
    const npuSrc = readDumpDir(unit.npuDir);
    const benchSrc = readDumpDir(unit.benchDir);
    // Mode detection reads the raw dump: run it before building, which reuses the descriptor maps as items.
    const mode = detectDumpMode(npuSrc.dump.top, benchSrc.dump.top, { npu: npuSrc.dumpFile!, bench: benchSrc.dumpFile! });
    const npu = buildGraph(npuSrc, { era, step: unit.step, rank: unit.rank }).graph;
    const bench = buildGraph(benchSrc, { era, step: unit.step, rank: unit.rank }).graph;
    let layerMapping: Map<string, string> | null = null;
    if (lmIndex >= 0) {
      const side = (dir: string) => ({
        dump: readJson(path.join(dir, 'dump.json')),
        construct: readJson(path.join(dir, 'construct.json')),
        stack: readJson(path.join(dir, 'stack.json')),
        file: path.join(dir, 'dump.json'),
      });
      layerMapping = buildLayerMapping(side(unit.npuDir), side(unit.benchDir), yamlFile ? readFileSync(yamlFile, 'utf8') : null).mapping;
    }
    compareGraphs(npu, bench, {
      mode,
      fuzzy: false,
      layerMapping,
      overflowCheck,
      dumpData: { npu: npuSrc.dump.data, bench: benchSrc.dump.data },
    });
    pagingByMicroStep(npu, bench, era);
    compared.push({ unit, npu, bench });
  }
  const steps = new Set(compared.map((c) => c.unit.step));
  for (const step of steps) {
    const ofStep = compared.filter((c) => c.unit.step === step);
    if (ofStep.length < 2) continue;
    matchDistributed(new Map(ofStep.map((c) => [c.unit.rank, c.npu])), overflowCheck);
    matchDistributed(new Map(ofStep.map((c) => [c.unit.rank, c.bench])), overflowCheck);
  }
  return compared;
}

/** Plain JSON-ish value for comparisons: Maps → objects, bigints → numbers. */
function plain(v: unknown): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]));
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'bigint') return Number(v);
  return v;
}

function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined || v === '') return true;
  if (v instanceof Map) return v.size === 0;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v as object).length === 0;
  return false;
}

/** Python-typed index for comparison: `0` (int) and `0.0` (float) differ. */
function indexKey(v: unknown): string {
  if (v === null || v === undefined) return 'none';
  if (typeof v === 'bigint') return `int:${v}`;
  return `float:${(v as number).toPrecision(17)}`;
}

interface GoldenNode {
  matchedNodeLink: unknown;
  precisionIndex: unknown;
  overflowLevel: unknown;
  matchedDistributed: unknown;
  microStepId: unknown;
  inputData: PyValue;
  outputData: PyValue;
}

function checkNode(label: string, node: GraphNode, g: GoldenNode, era: FormatEra, md5Mode: boolean, side: 'NPU' | 'Bench'): number {
  expect(node.matchedNodeLink, `${label} matched_node_link`).toEqual(plain(g.matchedNodeLink));
  expect(indexKey(getPrecisionIndex(node)), `${label} precision_index`).toBe(indexKey(g.precisionIndex));
  expect(node.data.overflowLevel ?? null, `${label} overflow_level`).toBe(g.overflowLevel ?? null);
  const ours = isEmpty(node.matchedDistributed) ? null : plain(node.matchedDistributed);
  expect(ours, `${label} matched_distributed`).toEqual(isEmpty(g.matchedDistributed) ? null : plain(g.matchedDistributed));
  if (g.microStepId !== undefined) expect(node.microStepId ?? 0, `${label} micro_step_id`).toBe(Number(g.microStepId));
  let columns = 0;
  for (const [which, data, golden] of [
    ['input', node.inputData, g.inputData],
    ['output', node.outputData, g.outputData],
  ] as const) {
    const formatted = formatItems(data, node.id, { era, md5Mode });
    const goldItems = golden instanceof Map ? golden : new Map<string, PyValue>();
    expect([...formatted.keys()], `${label} ${which} keys`).toEqual([...goldItems.keys()]);
    for (const [key, goldItem] of goldItems) {
      const item = formatted.get(key)!;
      const goldCols = goldItem instanceof Map ? [...goldItem].filter(([k]) => COMPARE_COLUMNS.has(k)) : [];
      const ourCols = [...item].filter(([k]) => COMPARE_COLUMNS.has(k));
      expect(ourCols, `${label} ${key} compare columns`).toEqual(goldCols);
      if (side === 'Bench') expect(ourCols, `${label} Bench items carry no compare columns`).toEqual([]);
      columns += goldCols.length;
    }
  }
  return columns;
}

describeShared('compare against the original graph command (goldens)', () => {
  const data = sharedDataDir() ?? '';
  for (const name of CASES) {
    const caseDir = path.join(data, 'golden', name);

    it(`${name}: vis-202507 JSON`, () => {
      const compared = runCase(caseDir, 'vis202507');
      const files = readdirSync(path.join(caseDir, 'vis-202507')).filter((f) => f.endsWith('.vis'));
      expect(files.length).toBe(compared.length);
      let nodes = 0;
      let columns = 0;
      for (const c of compared) {
        const multi = compared.length > 1;
        const stepMulti = existsSync(path.join(data, JSON.parse(readFileSync(path.join(caseDir, 'compare.json'), 'utf8')).npu_path, 'step0'));
        const tag = multi || stepMulti ? `${stepMulti ? `step${c.unit.step}_` : ''}rank${c.unit.rank}_` : '';
        const file = files.find((f) => f.startsWith(`compare_${tag}`) && (tag !== '' || /^compare_\d+\.vis$/.test(f)))!;
        expect(file, `golden file for ${tag}`).toBeTruthy();
        const golden = readJson(path.join(caseDir, 'vis-202507', file)) as Map<string, PyValue>;
        const md5Mode = golden.get('task') === 'md5';
        for (const side of ['NPU', 'Bench'] as const) {
          const graph = side === 'NPU' ? c.npu : c.bench;
          const goldNodes = (golden.get(side) as Map<string, PyValue>).get('node') as Map<string, Map<string, PyValue>>;
          for (const [id, g] of goldNodes) {
            const node = graph.nodeMap.get(id);
            expect(node, `${side} ${id} exists`).toBeTruthy();
            const d = g.get('data') as Map<string, PyValue>;
            columns += checkNode(`${file} ${side} ${id}`, node!, {
              matchedNodeLink: g.get('matched_node_link'),
              precisionIndex: d.get('precision_index'),
              overflowLevel: d.get('overflow_level'),
              matchedDistributed: g.get('matched_distributed'),
              microStepId: g.get('micro_step_id'),
              inputData: g.get('input_data') ?? null,
              outputData: g.get('output_data') ?? null,
            }, 'vis202507', md5Mode, side);
            nodes++;
          }
        }
      }
      expect(nodes).toBeGreaterThan(10);
      if (name.startsWith('synth')) expect(columns).toBeGreaterThan(1000);
    });

    it(`${name}: db`, () => {
      const compared = runCase(caseDir, 'db');
      const dbFile = readdirSync(path.join(caseDir, 'db')).find((f) => f.endsWith('.vis.db.json'))!;
      const golden = readJson(path.join(caseDir, 'db', dbFile)) as Map<string, PyValue>;
      const config = (golden.get('tb_config') as PyValue[])[0] as Map<string, PyValue>;
      const md5Mode = config.get('task') === 'md5';
      const graphs = golden.get('graphs') as Map<string, PyValue[]>;
      let nodes = 0;
      for (const [key, rows] of graphs) {
        const [step, rank, side] = key.split('/');
        const c = compared.find((x) => x.unit.step === Number(step) && x.unit.rank === Number(rank))!;
        expect(c, `unit ${key}`).toBeTruthy();
        const graph = side === 'NPU' ? c.npu : c.bench;
        for (const row of rows as Array<Map<string, PyValue>>) {
          const id = row.get('node_name') as string;
          const node = graph.nodeMap.get(id);
          expect(node, `${key} ${id} exists`).toBeTruthy();
          checkNode(`db ${key} ${id}`, node!, {
            matchedNodeLink: row.get('matched_node_link'),
            precisionIndex: row.get('precision_index'),
            overflowLevel: row.get('overflow_level'),
            matchedDistributed: row.get('matched_distributed'),
            microStepId: row.get('micro_step_id'),
            inputData: row.get('input_data') ?? null,
            outputData: row.get('output_data') ?? null,
          }, 'db', md5Mode, side as 'NPU' | 'Bench');
          nodes++;
        }
      }
      expect(nodes).toBeGreaterThan(3);
    });
  }
});

it('goldens are optional on a plain clone', () => {
  expect(typeof sharedDataDir).toBe('function');
});
