import type { TbNodeInfo, TbRunStats } from '../../core/api/types.js';
import { isObj, str, type Obj } from './checkValue.js';

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

const KINDS: ReadonlyArray<TbNodeInfo['kind']> = ['root', 'scope', 'series', 'op'];
const ROLES: ReadonlyArray<NonNullable<TbNodeInfo['role']>> = ['input', 'output', 'arg', 'ret'];

/**
 * A node answer's `tb` block (TensorBoard-side graphs, issue 16), checked like the rest of the answer (answers.ts):
 * wrong-typed fields become their "absent" value, bad list entries are dropped; no block → null.
 */
export function checkTbInfo(v: unknown): TbNodeInfo | null {
  if (!isObj(v)) return null;
  const runStats = list(v.runStats).map(
    (s): TbRunStats => ({
      tag: str(s.tag) ?? '',
      step: num(s.step),
      device: str(s.device) ?? '',
      startMicros: num(s.startMicros),
      opMicros: num(s.opMicros),
      allMicros: num(s.allMicros),
      memory: list(s.memory).map((m) => ({ allocator: str(m.allocator) ?? '', totalBytes: num(m.totalBytes), peakBytes: num(m.peakBytes), liveBytes: num(m.liveBytes) })),
      outputs: list(s.outputs).map((o) => ({
        slot: num(o.slot),
        dtype: str(o.dtype) ?? '',
        shape: Array.isArray(o.shape) ? o.shape.filter((d): d is number | string => typeof d === 'number' || typeof d === 'string') : null,
      })),
      timelineLabel: str(s.timelineLabel) ?? '',
    }),
  );
  return {
    label: str(v.label) ?? '',
    kind: KINDS.includes(v.kind as TbNodeInfo['kind']) ? (v.kind as TbNodeInfo['kind']) : 'op',
    op: str(v.op),
    domain: str(v.domain),
    device: str(v.device),
    attrs: list(v.attrs).flatMap((a) => {
      const key = str(a.key);
      const value = str(a.value);
      return key === null || value === null ? [] : [{ key, value, fullSize: Math.max(num(a.fullSize), value.length), truncated: a.truncated === true }];
    }),
    role: ROLES.includes(v.role as NonNullable<TbNodeInfo['role']>) ? (v.role as TbNodeInfo['role']) : null,
    calls: Array.isArray(v.calls) ? v.calls.filter((c): c is string => typeof c === 'string') : [],
    opCount: num(v.opCount),
    ...(runStats.length > 0 ? { runStats } : {}),
  };
}
