import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runGraphCommand, type GraphCommandOptions } from '../../server/graph/runGraph.js';
import { RunInterrupted } from '../../server/interrupt.js';
import { GraphFileError } from '../../server/store/graphStore.js';
import { PyJsonError } from '../../src/core/formats/pyJson.js';
import { tempDir } from './graphGolden.js';

// msprobe-format.md §6: every bad input stops the run with one line naming the file and the problem, and
// nothing appears in the output directory.
const root = tempDir('graph-errors');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let dir = '';
let n = 0;
beforeEach(() => {
  dir = path.join(root, `case${n++}`);
  fs.mkdirSync(dir);
});

const CONSTRUCT = { 'Tensor.add.0.forward': 'Module.m.M.forward.0', 'Module.m.M.forward.0': null };
const DUMP = { task: 'statistics', level: 'mix', framework: 'pytorch', dump_data_dir: null, data: {} };

function write(rel: string, content: unknown): string {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

function dumpDir(rel: string, files: { construct?: unknown; dump?: unknown; stack?: unknown } = {}): string {
  write(`${rel}/construct.json`, files.construct ?? CONSTRUCT);
  write(`${rel}/dump.json`, files.dump ?? DUMP);
  write(`${rel}/stack.json`, files.stack ?? {});
  return path.join(dir, rel);
}

async function fails(input: unknown, extra: Partial<GraphCommandOptions> = {}): Promise<Error> {
  const compare = typeof input === 'string' && input.endsWith('.json') ? input : write('compare.json', input);
  const out = path.join(dir, 'out');
  try {
    await runGraphCommand({ inputPath: compare, outputPath: out, quiet: true, baseDir: dir, ...extra });
  } catch (e) {
    expect(fs.existsSync(out)).toBe(false);
    return e as Error;
  }
  throw new Error('the run did not fail');
}

describe('probeboard graph: bad input', () => {
  it('names a missing compare.json', async () => {
    const e = await fails(path.join(dir, 'nope.json'));
    expect(e).toBeInstanceOf(GraphFileError);
    expect(e.message).toBe(`${path.join(dir, 'nope.json')}: The file does not exist.`);
  });

  it('gives line and column of malformed JSON', async () => {
    const e = await fails('{"npu_path": "npu",\n "bench_path": }');
    expect(e).toBeInstanceOf(PyJsonError);
    expect(e.message).toBe(`${path.join(dir, 'compare.json')}:2:16: unexpected '}'`);
  });

  it('wants npu_path, and a directory there', async () => {
    expect((await fails({ bench_path: 'x' })).message).toContain('"npu_path" is required');
    expect((await fails({ npu_path: 'missing' })).message).toBe(`${path.join(dir, 'missing')}: The path does not exist (npu_path in compare.json).`);
    write('afile', 'x');
    expect((await fails({ npu_path: 'afile' })).message).toContain('should be a folder');
  });

  it('rejects an empty dump directory and odd folder names', async () => {
    fs.mkdirSync(path.join(dir, 'empty'));
    expect((await fails({ npu_path: 'empty' })).message).toBe(`${path.join(dir, 'empty')}: The path is empty.`);
    dumpDir('mixed/rank0');
    fs.mkdirSync(path.join(dir, 'mixed/other'));
    expect((await fails({ npu_path: 'mixed' })).message).toContain('does not conform to the expected naming convention');
    dumpDir('padded/rank01');
    expect((await fails({ npu_path: 'padded' })).message).toContain("dump_dir contains 'rank01'. Expected 'rank'.");
    dumpDir('steps/step0/rank0');
    write('steps/step0/notes.txt', 'x');
    expect((await fails({ npu_path: 'steps' })).message).toContain("dump_dir contains 'notes.txt'. Expected 'rank'.");
  });

  it('needs both sides laid out alike, with ranks in common', async () => {
    dumpDir('npu/rank0');
    dumpDir('single');
    expect((await fails({ npu_path: 'npu', bench_path: 'single' })).message).toContain(
      'The directory structures of npu_path and bench_path are inconsistent',
    );
    dumpDir('bench/rank1');
    expect((await fails({ npu_path: 'npu', bench_path: 'bench' })).message).toContain(
      'The ranks in the two runs are completely different. Unable to match the ranks.',
    );
  });

  it('says which dump level to use when construct.json is empty', async () => {
    dumpDir('npu', { construct: {} });
    const e = await fails({ npu_path: 'npu' });
    expect(e.message).toBe(
      `${path.join(dir, 'npu/construct.json')}: The content of 'construct.json' is empty, failed to build graph. When dumping data, ` +
        "it is necessary to select level L0 or mix in order to collect model structure data, that is, the content of 'construct.json' is not empty.",
    );
  });

  it('names the broken file inside a dump directory', async () => {
    dumpDir('npu', { dump: '{"task": "statistics",\n  "data": {"a": [1, 2,]}}' });
    expect((await fails({ npu_path: 'npu' })).message).toBe(`${path.join(dir, 'npu/dump.json')}:2:23: unexpected ']'`);
    dumpDir('npu2');
    fs.rmSync(path.join(dir, 'npu2/stack.json'));
    expect((await fails({ npu_path: 'npu2' })).message).toBe(`${path.join(dir, 'npu2/stack.json')}: The file does not exist.`);
    dumpDir('npu3', { stack: [] });
    expect((await fails({ npu_path: 'npu3' })).message).toContain('the outermost layer of stack.json should be a dict type');
  });

  it('names a JSON file too large to read as text (sparse files: nothing is written to disk)', async () => {
    dumpDir('big');
    fs.truncateSync(path.join(dir, 'big/dump.json'), 2 ** 29);
    const e = await fails({ npu_path: 'big' });
    expect(e).toBeInstanceOf(GraphFileError);
    expect(e.message).toBe(
      `${path.join(dir, 'big/dump.json')}: The file is 512 MiB; JSON files larger than 512 MiB cannot be read whole ` +
        "(JavaScript's longest string). Dump per rank and step to keep each file smaller.",
    );
    // dump.json is read from its bytes: larger than a string may be, but not larger than one buffer.
    dumpDir('huge');
    fs.truncateSync(path.join(dir, 'huge/dump.json'), 2 ** 32 + 1);
    expect((await fails({ npu_path: 'huge' })).message).toBe(
      `${path.join(dir, 'huge/dump.json')}: The file is 4096 MiB; files larger than 4 GiB cannot be read whole ` +
        "(Node.js's largest buffer). Dump per rank and step to keep each file smaller.",
    );
    dumpDir('bigstack');
    fs.truncateSync(path.join(dir, 'bigstack/stack.json'), 2 ** 29);
    expect((await fails({ npu_path: 'bigstack' })).message).toMatch(/stack\.json: The file is 512 MiB; JSON files larger than 512 MiB/);
  });

  it('stops at once when its signal is aborted, leaving nothing behind', async () => {
    dumpDir('npu');
    const controller = new AbortController();
    controller.abort('SIGTERM');
    const e = await fails({ npu_path: 'npu' }, { signal: controller.signal });
    expect(e).toBeInstanceOf(RunInterrupted);
    expect((e as RunInterrupted).exitCode).toBe(143);
    expect(e.message).toBe('interrupted (SIGTERM); nothing was written');
  });

  it('names a file nested too deeply for the readers (not a bare stack overflow)', async () => {
    const deep = '['.repeat(60_000) + ']'.repeat(60_000);
    const problem = 'The JSON is nested too deeply to be read (Python stops at about 1,000 levels too).';
    dumpDir('d1', { dump: `{"task": "statistics", "data": {"Module.m.M.forward.0": {"input_args": ${deep}}}}` });
    expect((await fails({ npu_path: 'd1' })).message).toBe(`${path.join(dir, 'd1/dump.json')}: ${problem}`);
    dumpDir('d2', { construct: `{"Module.m.M.forward.0": null, "x": ${deep}}` });
    expect((await fails({ npu_path: 'd2' })).message).toBe(`${path.join(dir, 'd2/construct.json')}: ${problem}`);
    dumpDir('d3', { stack: `{"Module.m.M.forward.0": ${deep}}` });
    expect((await fails({ npu_path: 'd3' })).message).toBe(`${path.join(dir, 'd3/stack.json')}: ${problem}`);
    const e = await fails(write('deep-compare.json', `{"npu_path": ${deep}}`));
    expect(e).toBeInstanceOf(GraphFileError);
    expect(e.message).toBe(`${path.join(dir, 'deep-compare.json')}: ${problem}`);
  });

  it('writes nothing when a later rank fails', async () => {
    dumpDir('npu/rank0');
    dumpDir('npu/rank1', { construct: {} });
    for (const format of ['db', 'vis'] as const) {
      const e = await fails({ npu_path: 'npu' }, { format });
      expect(e.message).toContain(path.join('rank1', 'construct.json'));
    }
  });

  it('leaves an existing output directory as it was', async () => {
    dumpDir('npu/rank0');
    dumpDir('npu/rank1', { construct: {} });
    const out = path.join(dir, 'existing');
    fs.mkdirSync(out);
    await expect(runGraphCommand({ inputPath: write('compare.json', { npu_path: 'npu' }), outputPath: out, quiet: true, baseDir: dir })).rejects.toThrow(
      'construct.json',
    );
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it('refuses an output path that is a file', async () => {
    dumpDir('npu');
    const file = write('outfile', 'x');
    await expect(runGraphCommand({ inputPath: write('compare.json', { npu_path: 'npu' }), outputPath: file, quiet: true, baseDir: dir })).rejects.toThrow(
      `${file}: The output path exists and is not a directory.`,
    );
  });

  it('reports compare problems: task mismatch, cross-framework without -lm, missing mapping file', async () => {
    dumpDir('npu');
    dumpDir('bench', { dump: { ...DUMP, task: 'tensor' } });
    expect((await fails({ npu_path: 'npu', bench_path: 'bench' })).message).toContain('Please check the dump task is consistent.');
    dumpDir('ms', { dump: { ...DUMP, framework: 'mindspore' } });
    expect((await fails({ npu_path: 'ms', bench_path: 'npu' })).message).toContain('Please specify -lm or --layer_mapping');
    expect((await fails({ npu_path: 'ms', bench_path: 'npu' }, { layerMapping: path.join(dir, 'no.yaml') })).message).toBe(
      `${path.join(dir, 'no.yaml')}: The file does not exist.`,
    );
  });

  it('says that parallel_merge is not supported', async () => {
    dumpDir('npu');
    expect((await fails({ npu_path: 'npu', parallel_merge: { npu: { rank_size: 1, tp: 1, pp: 1 } } })).message).toContain(
      '"parallel_merge" (TP/PP graph merging) is not supported',
    );
  });
});

describe('probeboard graph: partial rank overlap', () => {
  it('compares the ranks both sides have and warns about the rest', async () => {
    dumpDir('npu/rank0');
    dumpDir('npu/rank1');
    dumpDir('bench/rank1');
    const out = path.join(dir, 'out');
    const s = await runGraphCommand({ inputPath: write('compare.json', { npu_path: 'npu', bench_path: 'bench' }), outputPath: out, quiet: true, baseDir: dir, format: 'vis' });
    expect(s.files.map((f) => path.basename(f).replace(/_\d{14}/, ''))).toEqual(['compare_rank1.vis']);
    expect(s.warnings).toEqual(['rank folders present on one side only are skipped: rank0']);
  });
});
