import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { normalizeGraphArgv, registerGraphCommand, summaryLine, warningLines } from '../../server/cli/graph.js';
import { runCli } from '../../server/cli/program.js';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from './graphGolden.js';

const fixtures = path.join(repoRoot, 'test/fixtures/graph');
const tmp = tempDir('graph-cli');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function compareJson(name: string, content: object): string {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, JSON.stringify(content));
  return p;
}

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t) };
  const code = await runCli(argv, [(p) => registerGraphCommand(p, io)], io);
  return { code, out, err };
}

describe('probeboard graph command line', () => {
  it('spells out msprobe’s -lm and -oc', () => {
    expect(normalizeGraphArgv(['-i', 'c.json', '-lm', 'm.yaml', '-oc', '-lm=x.yaml', '-o', 'out'])).toEqual([
      '-i', 'c.json', '--layer_mapping', 'm.yaml', '--overflow_check', '--layer_mapping=x.yaml', '-o', 'out',
    ]);
  });

  it('runs msprobe’s spelling: leading -f framework, -lm without a file, -oc', async () => {
    const input = compareJson('build.json', { npu_path: path.join(fixtures, 'msprobe-dumps/tiny_build') });
    const out = path.join(tmp, 'out1');
    const r = await cli(['-f', 'mindspore', 'graph', '-i', input, '-o', out, '-lm', '-oc', '--format', 'vis', '--quiet']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const files = fs.readdirSync(out);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^build_\d{14}\.vis$/);
    expect(r.out).toBe(`probeboard: built 1 graph, 3 nodes → ${path.join(out, files[0])}\n`);
    expect(JSON.parse(fs.readFileSync(path.join(out, files[0]), 'utf8')).OverflowCheck).toBe(true);
  });

  it('compares with a mapping file and -f as fuzzy matching, writing one .vis.db by default', async () => {
    const input = compareJson('compare.json', {
      npu_path: path.join(fixtures, 'msprobe-dumps/layer_mapping/mindspore'),
      bench_path: path.join(fixtures, 'msprobe-dumps/layer_mapping/pytorch'),
    });
    const out = path.join(tmp, 'out2');
    const yaml = path.join(fixtures, 'msprobe-dumps/layer_mapping/layer_mapping.yaml');
    const r = await cli(['graph', '-i', input, '-o', out, '-lm', yaml, '-f']);
    expect(r.code).toBe(0);
    expect(fs.readdirSync(out)[0]).toMatch(/^compare_\d{14}\.vis\.db$/);
    expect(r.out).toMatch(/^probeboard: compared 1 graph pair, 19 NPU nodes: \d+ matched, \d+ unmatched; (precision index|md5) [^→]+ → /);
  });

  it('exits 2 with one line for bad input and bad usage', async () => {
    const missing = await cli(['graph', '-i', path.join(tmp, 'none.json'), '-o', path.join(tmp, 'o3')]);
    expect(missing).toEqual({ code: 2, out: '', err: `probeboard: ${path.join(tmp, 'none.json')}: The file does not exist.\n` });
    const noOut = await cli(['graph', '-i', 'x.json']);
    expect(noOut.code).toBe(2);
    expect(noOut.err).toContain("required option '-o, --output_path <dir>' not specified");
    const badFormat = await cli(['graph', '-i', 'x.json', '-o', 'y', '--format', 'xml']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.err).toContain('--format');
  });

  it('summarises warnings and runs in one line each', () => {
    expect(warningLines(['a', 'b', 'a', 'c', 'd', 'e', 'f', 'g'])).toEqual(['a', 'b', 'c', 'd', 'e', '… and 2 more warnings']);
    const base = { kind: 'compare' as const, files: ['/o/a.vis', '/o/b.vis'], graphs: 2, nodes: 10, matched: 8, unmatched: 2, warnings: [] };
    const line = (o: Partial<Parameters<typeof summaryLine>[0]>) =>
      summaryLine({ ...base, task: 'summary', worstPrecisionIndex: null, worstNode: null, indexed: 0, differing: 0, ...o });
    expect(line({ worstPrecisionIndex: 0.2307692307692308, worstNode: 'Module.fc.Linear.forward.0', indexed: 8, differing: 3 })).toBe(
      'compared 2 graph pairs, 10 NPU nodes: 8 matched, 2 unmatched; precision index above 0 on 3 of 8 compared nodes, ' +
        'worst 0.230769 at Module.fc.Linear.forward.0 → 2 files in /o',
    );
    // A run compared with itself: say that it is identical, not "none".
    expect(line({ worstPrecisionIndex: 0, worstNode: 'A', indexed: 8 })).toContain('; precision index 0 on all 8 compared nodes: identical → ');
    // md5: 1 is identical, 0 differs.
    expect(line({ task: 'md5', worstPrecisionIndex: 1, worstNode: 'A', indexed: 8 })).toContain('; md5 identical on all 8 compared nodes (precision index 1) → ');
    expect(line({ task: 'md5', worstPrecisionIndex: 0, worstNode: 'B', indexed: 8, differing: 2 })).toContain('; md5 differs on 2 of 8 compared nodes, first B → ');
    expect(line({ task: 'structure' })).toContain('; structure dump: no precision index (only shapes and dtypes are compared) → ');
    expect(line({})).toContain('; no matched node has a precision index to report → ');
  });
});
