import { describe, expect, it } from 'vitest';
import type { FoundNode } from '../../src/core/api/types.js';
import { csvField, exportFileName, foundCsvFile, ioCsvFile, ioTableCsv, toCsv, UTF8_BOM } from '../../src/app/commands/exportCsv.js';
import { translate } from '../../src/app/i18n/i18n.js';
import { buildIoTable, cellText } from '../../src/app/panels/ioRows.js';
import { parseCsv } from '../helpers/csv.js';
import { visNode } from './shell/visNode.js';

const SYNTH = 'compare/synth_2layer.vis';
const NODE = 'Module.module.module.GPTModel.forward.0';
const en = (key: Parameters<typeof translate>[1], vars?: Record<string, string | number>) => translate('en', key, vars);
const zh = (key: Parameters<typeof translate>[1], vars?: Record<string, string | number>) => translate('zh-CN', key, vars);

describe('CSV writing (RFC 4180)', () => {
  it('quotes only fields with a comma, quote or line break, doubling quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
  });

  it('defuses fields a spreadsheet would run as formulas, and keeps signed numbers numbers', () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvField('+cmd|x')).toBe("'+cmd|x");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tTab')).toBe("'\tTab");
    for (const n of ['-0.5', '+1e-05', '-inf', '-12.5%', '-.25', 'nan']) expect(csvField(n)).toBe(n);
    expect(csvField('Module.layer-1')).toBe('Module.layer-1');
  });

  it('starts with the UTF-8 BOM, ends rows with CRLF, and reads back field for field', () => {
    const rows = [
      ['名称', 'shape', 'note'],
      ['输入.0', '[1, 2, 3]', 'a "quoted", multi\r\nline value'],
      ['', '-3e-05', '  spaces kept  '],
    ];
    const csv = toCsv(rows);
    expect(csv.startsWith(UTF8_BOM)).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv.slice(1).split('\r\n')[0]).toBe('名称,shape,note');
    expect(parseCsv(csv)).toEqual(rows);
    // The BOM is the UTF-8 bytes EF BB BF when encoded (what Excel looks for).
    expect([...new TextEncoder().encode(csv).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });
});

describe('info table CSV', () => {
  const npu = visNode(SYNTH, 'npu', NODE);
  const bench = visNode(SYNTH, 'bench', NODE);

  it('holds a header and every row of both sides, every column, in the table text', () => {
    const table = buildIoTable(npu, bench, true);
    const labels = { side: 'Side', name: 'Name', npu: 'NPU', bench: 'Bench' };
    const parsed = parseCsv(ioTableCsv(table, true, labels));
    expect(parsed[0]).toEqual(['Side', 'Name', ...table.columns]);
    expect(parsed).toHaveLength(table.rows.length + 1);
    table.rows.forEach((row, i) => {
      expect(parsed[i + 1]).toEqual([row.side === 'npu' ? 'NPU' : 'Bench', row.name, ...table.columns.map((c) => cellText(row.item[c]))]);
    });
    // Both sides are there, and a cell from the file's own item survives untouched.
    expect(new Set(parsed.slice(1).map((r) => r[0]))).toEqual(new Set(['NPU', 'Bench']));
    const maxCol = parsed[0].indexOf('Max');
    expect(maxCol).toBeGreaterThan(1);
    expect(parsed[2][maxCol]).toBe(cellText(bench.inputData[`${NODE}.input.0`].Max));
  });

  it('drops the Side column for build files and labels in the UI language', () => {
    const single = parseCsv(ioTableCsv(buildIoTable(npu, null, false), false, { side: 'S', name: 'N', npu: 'n', bench: 'b' }));
    expect(single[0][0]).toBe('N');
    expect(single.slice(1).every((r) => r.length === single[0].length)).toBe(true);
    const file = ioCsvFile(npu, bench, true, zh, { run: 'compare', tag: 'synth_2layer' });
    expect(parseCsv(file.csv)[0].slice(0, 2)).toEqual(['数据侧', '名称']);
    expect(parseCsv(file.csv)[1][0]).toBe('调试侧');
    expect(file.fileName).toBe(`compare-synth_2layer-${NODE}.csv`);
  });
});

describe('list CSV', () => {
  const nodes: FoundNode[] = [
    { id: 'Module.a,b "x".forward.0', nodeType: 0, precisionIndex: 0.123456789, overflowLevel: null, matchedNodeLink: [], childCount: 2, microStepId: null, path: ['root', 'Module.a'] },
    { id: 'Torch.add.1', nodeType: 1, precisionIndex: null, overflowLevel: null, matchedNodeLink: [], childCount: 0, microStepId: null, path: [] },
  ];

  it('lists id, the full precision value, the type in words and the ancestors, in the list order', () => {
    const file = foundCsvFile(nodes, 'npu', 'worst', en, { run: 'r', tag: 't' });
    const parsed = parseCsv(file.csv);
    expect(parsed[0]).toEqual(['Node', 'Precision index', 'Type', 'Ancestors']);
    expect(parsed[1]).toEqual([nodes[0].id, '0.123456789', 'module', 'root > Module.a']);
    expect(parsed[2]).toEqual(['Torch.add.1', '', 'API', '']);
    expect(file.fileName).toBe('r-t-npu-worst.csv');
  });
});

describe('export file names', () => {
  it('replaces characters unsafe on any system and keeps Chinese', () => {
    expect(exportFileName(['runs/a b', 'x:y*?"<>|', '模型'], 'csv')).toBe('runs_a_b-x_y-模型.csv');
    expect(exportFileName(['.', '..hidden', null, ''], 'svg')).toBe('hidden.svg');
    expect(exportFileName([], 'png')).toBe('probeboard.png');
    expect(exportFileName(['a\u0000b\nc'], 'csv')).toBe('a_b_c.csv');
    expect(Array.from(exportFileName(['x'.repeat(500)], 'csv')).length).toBe(124);
  });
});
