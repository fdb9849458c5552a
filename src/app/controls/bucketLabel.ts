import type { ColorBucket, Task } from '../../core/api/types.js';
import { isUnmatchedBucket } from '../../core/colors/buckets.js';
import type { MessageKey } from '../i18n/i18n.js';

/**
 * What a colour bucket means, as a message key plus values. Buckets are left-closed/right-open, except that a bucket
 * ending at 1 also holds 1 and `[x, x]` is an exact value (msprobe-format.md §3.9, tb_graph_ascend's bucket test).
 */
export interface BucketLabel {
  key: MessageKey;
  vars?: Record<string, string | number>;
}

export function bucketLabel(bucket: ColorBucket, task: Task): BucketLabel | { text: string } {
  if (isUnmatchedBucket(bucket)) return { key: 'legend.unmatched' };
  const value = bucket.value;
  if (!Array.isArray(value) || value.length !== 2 || !value.every((v) => typeof v === 'number')) {
    return { text: Array.isArray(value) ? value.join(', ') : String(value) };
  }
  const [lo, hi] = value;
  if (lo === hi) {
    if (task === 'md5' && lo === 1) return { key: 'legend.md5Pass' };
    if (task === 'md5' && lo === 0) return { key: 'legend.md5Diff' };
    return { key: 'legend.exact', vars: { v: lo } };
  }
  return { key: hi === 1 ? 'legend.rangeClosed' : 'legend.range', vars: { lo, hi } };
}

export function taskMeaningKey(task: Task): MessageKey {
  switch (task) {
    case 'summary':
      return 'legend.task.summary';
    case 'md5':
      return 'legend.task.md5';
    case 'all':
      return 'legend.task.all';
    case 'structure':
      return 'legend.task.structure';
    default:
      return 'legend.task.unknown';
  }
}
