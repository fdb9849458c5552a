import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { adviceFor, AdvisorScan } from '../../src/core/compareTable/advisor.js';
import { builtInApiName, MappingFileError, parseUserApiMapping } from '../../src/core/compareTable/apiMapping.js';
import { ByteArena } from '../../src/core/compareTable/byteArena.js';
import { cellMappedName } from '../../src/core/compareTable/cellMapping.js';
import { columnIndex, tableHeader } from '../../src/core/compareTable/columns.js';
import { dtypesCompatible } from '../../src/core/compareTable/dtypeRule.js';
import { DumpJsonScanner } from '../../src/core/compareTable/dumpJsonScanner.js';
import { DumpContentError, validateDumpEntry } from '../../src/core/compareTable/dumpValidation.js';
import { fastEntryRows } from '../../src/core/compareTable/fastEntry.js';
import { highlightBatch, type TableRow } from '../../src/core/compareTable/highlight.js';
import { fuzzyName, matchRows } from '../../src/core/compareTable/match.js';
import { opRows, type OpRow } from '../../src/core/compareTable/opRows.js';
import { pandasToNumeric } from '../../src/core/compareTable/pandasNumber.js';
import type { SideTable } from '../../src/core/compareTable/sideTable.js';
import { SideTableBuilder } from '../../src/core/compareTable/sideTableBuilder.js';
import type { Cell } from '../../src/core/compareTable/statCells.js';
import { formatG16, sheetPlan } from '../../src/core/compareTable/xlsxParts.js';
import { hasMd5 } from '../../src/core/compare/mode.js';
import { pyExp } from '../../src/core/formats/pyFormat.js';
import { PyJsonError, parsePyJson, type PyValue } from '../../src/core/formats/pyJson.js';
import { sharedDataDir } from '../helpers/shared.js';

/** Hand-made cases for the compare table's building blocks (the golden tests cover them end to end). */

describe('pandas number reading (precise_xstrtod)', () => {
  it('keeps 17 digits counting leading zeros, which is what the original computed', () => {
    expect(pandasToNumeric('0.0002841949462890625')).toBe(0.000284194946289);
    // golden ms_pt_cross_cm_yaml, Mean diff of Cell…ParallelTransformerLayer.forward.0.input.0
    expect(pandasToNumeric('-6.781192496418953e-09') - pandasToNumeric('0.0002841949462890625')).toBe(-0.0002842017274814964);
  });
  it('reads ints, exponents, infinities and rejects the rest', () => {
    expect(pandasToNumeric('0')).toBe(0);
    expect(pandasToNumeric(' 12 ')).toBe(12);
    expect(pandasToNumeric('1e-06')).toBe(1e-6);
    expect(pandasToNumeric('inf')).toBe(Infinity);
    expect(pandasToNumeric('-Infinity')).toBe(-Infinity);
    for (const s of ['nan', 'None', 'True', '[0, 1]', 'RedOpType.SUM', '', '1e500']) expect(pandasToNumeric(s)).toBeNaN();
  });
});

/** %.16g from the exact half-even formatter, as an independent reference. */
function referenceG16(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const e = pyExp(x, 15);
  const at = e.indexOf('e');
  const exp = Number(e.slice(at + 1));
  const neg = e.startsWith('-');
  const digits = e.slice(neg ? 1 : 0, at).replace('.', '');
  const trimmed = digits.replace(/0+$/, '') || '0';
  let out: string;
  if (exp < -4 || exp >= 16) out = `${trimmed[0]}${trimmed.length > 1 ? '.' + trimmed.slice(1) : ''}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  else if (exp >= 0) out = trimmed.length > exp + 1 ? `${trimmed.slice(0, exp + 1)}.${trimmed.slice(exp + 1)}` : digits.slice(0, exp + 1);
  else out = `0.${'0'.repeat(-exp - 1)}${trimmed}`;
  return (neg ? '-' : '') + out;
}

describe('number cells (%.16g)', () => {
  it('matches the exact formatter on edge values and random doubles', () => {
    const values = [0.1, 1e-5, 1e16, 1.5e16, 123456789012345678, 1234567890123456.5, -0.0025000000000000005, 299999999997.5, 9.3, 5e-324, 1.7976931348623157e308, 0.30000000000000004, 2 ** -13];
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let i = 0; i < 20000; i++) {
      values.push((rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20));
      values.push(Math.fround(rand() * 1000));
      values.push(Math.round(rand() * 2 ** 40) / 2 ** Math.floor(rand() * 30));
    }
    for (const v of values) expect(formatG16(v), String(v)).toBe(referenceG16(v));
    expect(formatG16(-0.0025000000000000005)).toBe('-0.0025');
    expect(formatG16(9.3)).toBe('9.300000000000001');
  });
});

describe('naming and mapping rules', () => {
  it('fuzzy names drop the call count (APIs) or the class name (modules)', () => {
    expect(fuzzyName('Functional.conv2d.3.forward.input.0')).toBe('Functional.conv2d.forward.input.0');
    expect(fuzzyName('Module.l1.Linear.forward.0.input.0')).toBe('Module.l1.forward.0.input.0');
    expect(fuzzyName('Tensor.add.0.backward.output.1')).toBe('Tensor.add.backward.output.1');
    expect(fuzzyName('X.debug')).toBe('X.debug');
  });
  it('built-in api mapping: Mint, MintFunctional, and the table', () => {
    const table = new Map([['Functional.abs', 'Torch.abs']]);
    expect(builtInApiName('Mint.logical_or.0.forward.input.0', table)).toBe('Torch.logical_or.0.forward.input.0');
    expect(builtInApiName('MintFunctional.relu.0.forward.output.0', table)).toBe('Functional.relu.0.forward.output.0');
    expect(builtInApiName('Functional.abs.1.forward.input.0', table)).toBe('Torch.abs.1.forward.input.0');
    expect(builtInApiName('Tensor.add.0.forward.input.0', table)).toBe('Tensor.add.0.forward.input.0');
  });
  it('cell mapping: Cell → Module, yaml renames the cell part, non-cell tensors never match', () => {
    const yaml = new Map([['fc1.Dense', 'fc1.Linear']]);
    expect(cellMappedName('Cell.fc1.Dense.forward.0.input.0', yaml)).toBe('Module.fc1.Linear.forward.0.input.0');
    expect(cellMappedName('Cell.fc2.Dense.backward.0.output.0', null)).toBe('Module.fc2.Dense.backward.0.output.0');
    expect(cellMappedName('Cell.fc1.Dense.parameters_grad.weight', yaml)).toBe('Module.fc1.Linear.parameters_grad.weight');
    expect(cellMappedName('Tensor.add', yaml)).toBe('N/A');
    expect(cellMappedName('', yaml)).toBe('N/A');
  });
  it('dtype rule: float16/32/bf16 groups per framework; cross-framework by kind', () => {
    expect(dtypesCompatible('torch.float16', 'torch.float32', false)).toBe(true);
    expect(dtypesCompatible('torch.float64', 'torch.float32', false)).toBe(false);
    expect(dtypesCompatible('Float16', 'torch.float32', false)).toBe(false);
    expect(dtypesCompatible('Float16', 'torch.float32', true)).toBe(true);
    expect(dtypesCompatible('Int32', 'torch.int64', true)).toBe(true);
    expect(dtypesCompatible('Int32', 'Int64', false)).toBe(false);
    expect(dtypesCompatible('Bool', 'torch.bool', true)).toBe(true);
  });
  it('user api mapping: documented keys, unknown keys and bad indices are errors, unequal lists a warning', () => {
    const doc = 'ms_api: Functional.abs\npt_api: Torch.abs\nms_args: [0, 1]\npt_args: [0, 1]\nms_outputs: [0]\npt_outputs: [0]\n';
    const one = parseUserApiMapping(doc, 'a.yaml');
    expect(one.entries[0].lists.outputs).toEqual({ ms: [0], pt: [0] });
    expect(() => parseUserApiMapping(doc + 'ms_argz: [1]\n', 'a.yaml')).toThrow(/unknown key 'ms_argz'/);
    expect(() => parseUserApiMapping('- ms_api: A.b\n  pt_api: C.d\n  ms_args: [0, 0]\n  pt_args: [1, 2]\n', 'a.yaml')).toThrow(MappingFileError);
    const skipped = parseUserApiMapping('- ms_api: A.b\n  pt_api: C.d\n  ms_args: [0]\n  pt_args: [1, 2]\n', 'a.yaml');
    expect(skipped.entries).toEqual([]);
    expect(skipped.warnings[0]).toMatch(/differ in length/);
  });
});

function sideTable(rows: Array<[api: string, row: Partial<OpRow> & { name: string }]>): SideTable {
  const b = new SideTableBuilder();
  const apis = new Map<string, number>();
  for (const [api, r] of rows) {
    if (!apis.has(api)) apis.set(api, b.addApi(api));
    b.addRow(apis.get(api)!, {
      dtype: 'torch.float32',
      shape: '[2]',
      stats: [1, 0, 0.5, 1],
      requiresGrad: 'False',
      state: 'input',
      dataName: '-1',
      md5: '00000000',
      p2pOp: null,
      p2pPeer: null,
      ...r,
    });
  }
  return b.finish();
}

describe('matching (pandas merge semantics)', () => {
  it('groups duplicate NPU keys at their first appearance and crosses them with every bench twin', () => {
    const npu = sideTable([
      ['A', { name: 'a' }],
      ['B', { name: 'b' }],
      ['A', { name: 'a' }],
      ['C', { name: 'c', shape: '[3]' }],
    ]);
    const bench = sideTable([
      ['A', { name: 'a' }],
      ['A', { name: 'a' }],
      ['C', { name: 'c' }],
      ['D', { name: 'd' }],
    ]);
    const m = matchRows(npu, bench, { kind: 'exact', npuKeys: npu.nameArena, crossFramework: false });
    const pairs = Array.from({ length: m.length }, (_, k) => [m.npu[k], m.bench[k]]);
    expect(pairs).toEqual([
      [0, 0],
      [0, 1],
      [2, 0],
      [2, 1],
      [1, -1],
      [3, -1], // shape differs
    ]);
  });
  it('fuzzy: every NPU row gets a line, also after the bench side ran out (the original drops them)', () => {
    const npu = sideTable([
      ['a', { name: 'Functional.a.1.forward.input.0' }],
      ['b', { name: 'Functional.b.0.forward.input.0' }],
      ['c', { name: 'Functional.c.0.forward.input.0' }],
    ]);
    const bench = sideTable([['a', { name: 'Functional.a.0.forward.input.0' }]]);
    const m = matchRows(npu, bench, { kind: 'fuzzy', npuKeys: npu.nameArena, crossFramework: false });
    expect(Array.from(m.npu)).toEqual([0, 1, 2]);
    expect(Array.from(m.bench)).toEqual([0, -1, -1]);
  });
  it('data mapping: left join on the key alone, no dtype rule', () => {
    const npu = sideTable([['x', { name: 'x.0', dtype: 'torch.int64' }]]);
    const bench = sideTable([['y', { name: 'y.0', shape: '[9]' }]]);
    const keys = new ByteArena();
    keys.push('y.0');
    const m = matchRows(npu, bench, { kind: 'dataMapping', npuKeys: keys, crossFramework: false });
    expect([m.npu[0], m.bench[0]]).toEqual([0, 0]);
    const exact = matchRows(npu, bench, { kind: 'exact', npuKeys: keys, crossFramework: false });
    expect(exact.bench[0]).toBe(-1);
  });
});

describe('highlight and advisor', () => {
  const header = tableHeader('summary', false);
  const col = columnIndex(header);
  function row(state: TableRow['state'], values: Record<string, Cell>): TableRow {
    const cells: Cell[] = header.map((h) => values[h] ?? '');
    cells[col.requiresGradConsistent] = values['Requires_grad Consistent'] ?? true;
    return { cells, state, apiKey: 'Functional.f.0.forward', fill: null, npu: 0, bench: 0 };
  }
  it('order of magnitude (yellow), relative error (red), overflow (red), requires_grad (yellow)', () => {
    const rows = [
      row('input', { 'NPU max': 2, 'Bench max': 2, 'Max diff': 2, MaxRelativeErr: '0.5%' }),
      row('output', { 'NPU max': 30, 'Bench max': 30, 'Max diff': 30, MaxRelativeErr: '20.0%', Err_message: 'x' }),
      row('output', { 'NPU max': Infinity, 'Bench max': 3, 'Max diff': 1, MaxRelativeErr: '70.0%' }),
      row('output', { 'NPU max': 1, 'Bench max': 1, 'Max diff': 0, MaxRelativeErr: '0.0%', 'Requires_grad Consistent': false }),
    ];
    highlightBatch(rows, 'summary', col);
    expect(rows.map((r) => r.fill)).toEqual([null, 'yellow', 'red', 'yellow']);
    expect(rows[1].cells[col.errMessage]).toBe(
      "x\nmaximum absolute error of both input/parameters and output exceed 1, with the output larger by an order of magnitude\n" +
        "The output's maximum relative error exceeds 0.1, while the input/parameter's is below 0.01",
    );
    // The pair rules also run on rows already red (msprobe's skip never triggers): both reasons.
    expect(rows[2].cells[col.errMessage]).toBe('maximum or minimum is nan, -inf, or inf\nmaximum relative error exceeds 0.5');
    expect(rows[3].cells[col.errMessage]).toBe('requires_grad is inconsistent');
  });
  it('advisor: first failing row and advice by name', () => {
    expect(adviceFor('Functional.conv2d.0.forward.output.0')).toMatch(/seed_all\(mode=True\)/);
    expect(adviceFor('Functional.relu.0.forward.input.0')).toMatch(/^1\. Analyze the model/);
    expect(adviceFor('Functional.relu.0.backward.output.0')).toBe('This is a backward API computation error. Check the computation implementation.');
    const scan = new AdvisorScan('summary');
    scan.consider(0, 'a', '');
    scan.consider(1, 'Tensor.add.0.backward.input.0', 'Warning');
    scan.consider(2, 'c', 'Warning');
    expect(scan.text()).toBe('Line: 1\nSuspect Nodes: Tensor.add.0.backward.input.0\nExpert Advice: Check whether the forward computation result is affected.\n');
    expect(new AdvisorScan('all').text()).toBe('Line: NA\nSuspect Nodes: NA\nExpert Advice: All data in comparison result meets the accuracy requirements.\n');
  });
});

describe('dump.json streaming', () => {
  const text =
    '{\n "task": "statistics",\n "level": "L1",\n "data": {\n  "A.x.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": NaN, "Min": 1, "Mean": 0.5, "Norm": 1.0, "requires_grad": true}], "output": [null]},\n' +
    '  "B.y.0.forward": {"input_kwargs": {"s": {"type": "str", "value": "a\\"b}"}}},\n  "C.z.0.forward": {}\n },\n "framework": "pytorch"\n}\n';
  const bytes = new TextEncoder().encode(text);
  function scan(chunk: number): Array<[string, string]> {
    const seen: Array<[string, string]> = [];
    const sc = new DumpJsonScanner('d.json', {
      top: (k, v) => seen.push([`top:${k}`, JSON.stringify(v)]),
      entry: (k, _t, parse) => seen.push([k, JSON.stringify(parse(), (_k, v) => (v instanceof Map ? [...v] : typeof v === 'number' && v !== v ? 'NaN' : typeof v === 'bigint' ? `${v}n` : v))]),
    });
    for (let i = 0; i < bytes.length; i += chunk) sc.push(bytes.subarray(i, i + chunk));
    sc.end();
    return seen;
  }
  it('yields the same entries whatever the chunk size', () => {
    const whole = scan(bytes.length);
    expect(whole.map(([k]) => k)).toEqual(['top:task', 'top:level', 'A.x.0.forward', 'B.y.0.forward', 'C.z.0.forward', 'top:framework']);
    for (const size of [1, 2, 3, 5, 7, 13, 64]) expect(scan(size)).toEqual(whole);
  });
  it('reports errors at the file position, inside and outside entries', () => {
    const bad = (t: string) => {
      const sc = new DumpJsonScanner('d.json', { top() {}, entry: (_k, _t, parse) => parse() });
      try {
        sc.push(new TextEncoder().encode(t));
        sc.end();
      } catch (e) {
        return e instanceof PyJsonError ? `${e.line}:${e.column} ${e.problem}` : String(e);
      }
      return 'ok';
    };
    expect(bad('{\n "data": {\n  "A": {"input_args": [1,,2]}\n }\n}')).toBe("3:26 unexpected ','");
    expect(bad('{\n "task": "x"\n "data": {}}')).toBe("3:2 expected ',' or '}', found '\"'");
    expect(bad('{\n "data": {\n  "A": {}')).toMatch(/unexpected end of file/);
  });
  it('the fast entry reader agrees with the general one on every golden dump entry', () => {
    const shared = sharedDataDir();
    if (!shared) return;
    const dir = path.join(shared, 'golden-compare');
    let fast = 0;
    for (const c of ['pt_summary', 'pt_md5', 'ms_tensor', 'ms_tensor_edge', 'ms_pt_cross']) {
      for (const side of ['npu', 'bench']) {
        const file = path.join(dir, c, side, 'dump.json');
        const sc = new DumpJsonScanner(file, {
          top() {},
          entry(key, t, parse) {
            const f = fastEntryRows(key, t);
            if (!f) return;
            fast++;
            const v = parse() as PyValue;
            expect(f.hasMd5).toBe(hasMd5(new Map([[key, v]])));
            expect(f.rows).toEqual(opRows(key, v, file));
          },
        });
        sc.push(readFileSync(file));
        sc.end();
      }
    }
    expect(fast).toBeGreaterThan(50);
  });
});

describe('validation (formula injection, types)', () => {
  const parse = (t: string) => parsePyJson(t, { mode: 'python' }) as PyValue;
  it('rejects formula-like names and strings, non-list shapes and non-bool requires_grad', () => {
    expect(() => validateDumpEntry('=cmd.0.forward', null, 'f')).toThrow(/api name .* contains special characters/);
    expect(() => validateDumpEntry('A.b.0.forward', parse('{"input_args": [{"type": "str", "value": "@x"}]}'), 'f')).toThrow(DumpContentError);
    expect(() => validateDumpEntry('A.b.0.forward', parse('{"output": [{"type": "t", "shape": 3}]}'), 'f')).toThrow(/shape of input or output/);
    expect(() => validateDumpEntry('A.b.0.forward', parse('{"output": [{"type": "t", "requires_grad": 1}]}'), 'f')).toThrow(/requires_grad/);
    expect(() => validateDumpEntry('A.b.0.forward', parse('{"input_args": [{"type": "str", "value": "a-b"}]}'), 'f')).not.toThrow();
  });
});

describe('sheet splitting', () => {
  it('equal slices past the limit (np.array_split), Sheet1 / Sheet below it', () => {
    expect(sheetPlan(10, 'default')).toEqual({ names: ['Sheet1'], sizes: [10], style: 'default' });
    expect(sheetPlan(10, 'highlight')).toEqual({ names: ['Sheet'], sizes: [10], style: 'highlight' });
    expect(sheetPlan(2_097_001, 'default').sizes).toEqual([699001, 699000, 699000]);
    expect(sheetPlan(2_097_001, 'highlight').names).toEqual(['part_0', 'part_1', 'part_2']);
    expect(sheetPlan(7, 'default', 3).sizes).toEqual([3, 2, 2]);
    expect(sheetPlan(3, 'default', 3).names).toEqual(['part_0']);
  });
});
