import { describe, expect, it } from 'vitest';
import type { GraphMeta, TagEntry } from '../../../src/core/api/types.js';
import { translate } from '../../../src/app/i18n/i18n.js';
import {
  entryForOptionValue,
  fileOptionValue,
  isEmptyGraph,
  openEntry,
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
});
