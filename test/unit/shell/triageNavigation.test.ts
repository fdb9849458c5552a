import { describe, expect, it } from 'vitest';
import type { GraphMeta, TagEntry } from '../../../src/core/api/types.js';
import { translate } from '../../../src/app/i18n/i18n.js';
import {
  entryForOptionValue,
  fileOptionValue,
  isEmptyGraph,
  openEntry,
  pickerChoices,
  rankAtStep,
  runLabel,
} from '../../../src/app/state/fileChoice.js';
import { emptyHashState, formatHash, parseHash } from '../../../src/app/state/url.js';

const entry = (tag: string, format: 'vis' | 'db'): TagEntry =>
  ({ tag, format, graphType: 'compare', sizeBytes: 1, error: null }) as TagEntry;

describe('issue 14: same-name .vis / .vis.db, root run, empty graphs, links', () => {
  const vis = entry('x', 'vis');
  const db = entry('x', 'db');
  const other = entry('y', 'vis');
  const tags = [vis, db, other];

  it('gives a same-name pair two option values and maps each back to its own file', () => {
    expect(fileOptionValue(tags, vis)).toBe('vis/x');
    expect(fileOptionValue(tags, db)).toBe('db/x');
    expect(fileOptionValue(tags, other)).toBe('y');
    expect(entryForOptionValue(tags, 'db/x')).toBe(db);
    expect(entryForOptionValue(tags, 'vis/x')).toBe(vis);
    expect(entryForOptionValue(tags, 'y')).toBe(other);
  });

  it('finds the open entry by format, and the server’s choice (.vis) without one', () => {
    expect(openEntry(tags, 'x', 'db')).toBe(db);
    expect(openEntry(tags, 'x', 'vis')).toBe(vis);
    expect(openEntry(tags, 'x', null)).toBe(vis);
    expect(openEntry([db], 'x', null)).toBe(db);
    expect(openEntry(tags, 'missing', null)).toBeUndefined();
  });

  it('carries the format in the link', () => {
    const hash = formatHash({ ...emptyHashState, run: 'r', tag: 'x', format: 'db' });
    expect(hash).toBe('#graphs?run=r&tag=x&format=db');
    expect(parseHash(hash).format).toBe('db');
    expect(parseHash('#graphs?run=r&tag=x&format=evil').format).toBeNull();
  });

  it('names the log dir root run in both languages', () => {
    expect(runLabel('.', translate('en', 'picker.rootRun'))).toBe('(log dir root)');
    expect(runLabel('.', translate('zh-CN', 'picker.rootRun'))).toBe('（日志目录根）');
    expect(runLabel('a/b', 'x')).toBe('a/b');
  });

  it('says "cannot reach the server" and mentions .vis.db in both languages', () => {
    expect(translate('en', 'error.unreachable', { message: 'Failed to fetch' })).toMatch(/^Cannot reach the server/);
    expect(translate('zh-CN', 'error.unreachable', { message: 'Failed to fetch' })).toMatch(/^无法连接服务器/);
    for (const lang of ['en', 'zh-CN'] as const) expect(translate(lang, 'app.noFilesAny', { logdir: 'd' })).toContain('.vis.db');
  });

  it('detects a step / rank pair without a graph', () => {
    const meta = { roots: {}, nodeCounts: { npu: 0, bench: 0 } } as unknown as GraphMeta;
    expect(isEmptyGraph(meta)).toBe(true);
    expect(isEmptyGraph({ ...meta, roots: { npu: 'A' }, nodeCounts: { npu: 3 } } as GraphMeta)).toBe(false);
  });

  it('offers only step × rank pairs that hold a graph, and the shown pair (item 5)', () => {
    const meta = { steps: [0, 1, 2], ranks: [0, 1], graphs: [[0, 0], [0, 1], [1, 0], [2, 0]] } as unknown as GraphMeta;
    expect(pickerChoices(meta, 0, 0)).toEqual({ steps: [0, 1, 2], ranks: [0, 1] });
    expect(pickerChoices(meta, 1, 0)).toEqual({ steps: [0, 1, 2], ranks: [0] });
    // A link to the empty pair: the picker still shows rank 1.
    expect(pickerChoices(meta, 1, 1)).toEqual({ steps: [0, 1, 2], ranks: [0, 1] });
    expect(pickerChoices({ ...meta, graphs: [[0, 0]] } as GraphMeta, 0, 0)).toEqual({ steps: [0], ranks: [0] });
    // Without the server's pair list (a `.vis`): the listed steps and ranks.
    expect(pickerChoices({ steps: [0, 1], ranks: [0, 1] } as GraphMeta, 1, 1)).toEqual({ steps: [0, 1], ranks: [0, 1] });
    expect(rankAtStep(meta, 1, 1)).toBe(0);
    // The default rank (null = the first listed) stays the default where it holds a graph.
    expect(rankAtStep(meta, 2, null)).toBe(null);
    expect(rankAtStep({ ...meta, graphs: [[0, 0], [1, 1]] } as GraphMeta, 1, null)).toBe(1);
    expect(rankAtStep(meta, 0, 1)).toBe(1);
    expect(rankAtStep({ steps: [0], ranks: [0, 1] } as GraphMeta, 0, 1)).toBe(1);
  });
});
