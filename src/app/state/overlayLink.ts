import type { MatchOp, PrecisionMetric } from '../../core/api/overlay.js';
import { PRECISION_METRICS } from '../../core/api/overlay.js';
import type { ColorBucket } from '../../core/api/types.js';
import { isUnmatchedBucket } from '../../core/colors/buckets.js';
import { activeOps, EMPTY_DOC, type OverlayDoc } from '../commands/matchOps.js';

/**
 * The overlay's part of a link (`ov=`, issue 15): the applied match steps, the metric choice and the colour buckets,
 * so a teammate opening the link sees the same comparison. Tokens joined by `*`, characters URLSearchParams leaves
 * as they are, so the hash stays readable:
 *   `M<bits>`            metrics (1 Max, 2 Min, 4 Mean, 8 Norm), only when not all four
 *   `C<rrggbb>_<lo>_<hi>` one colour bucket, in order (`C` alone: the editor's buckets are none)
 *   `<k><n>.<rest>`      one op: k = m match, c match with children, u unmatch, v unmatch with children, k a
 *                        `.vis.config` entry; the NPU
 *                        name front-coded against the previous op's, then a token `<n>.<rest>` for the Bench name,
 *                        front-coded against its NPU name (the usual same-name pair costs a few characters).
 * An overlay whose text is longer than LINK_MAX_OVERLAY is left out of the link: it stays in this browser only.
 */
export const LINK_MAX_OVERLAY = 1500;
/** A hand-edited link is read up to this many tokens. */
const DECODE_MAX_TOKENS = 4000;

const escapeName = (text: string) => text.replace(/[%*]/g, (c) => (c === '%' ? '%25' : '%2A'));
const unescapeName = (text: string) => text.replace(/%(25|2A)/g, (m) => (m === '%25' ? '%' : '*'));

function frontCode(text: string, previous: string): string {
  let shared = 0;
  while (shared < text.length && shared < previous.length && text[shared] === previous[shared]) shared++;
  return `${shared}.${escapeName(text.slice(shared))}`;
}

function frontDecode(token: string, previous: string): string | null {
  const match = /^(\d{1,5})\./.exec(token);
  if (!match || Number(match[1]) > previous.length) return null;
  return previous.slice(0, Number(match[1])) + unescapeName(token.slice(match[0].length));
}

const OP_KINDS: Record<string, Pick<MatchOp, 'op' | 'children'>> = {
  m: { op: 'match', children: false },
  c: { op: 'match', children: true },
  u: { op: 'unmatch', children: false },
  v: { op: 'unmatch', children: true },
  k: { op: 'config', children: false },
};
const kindOf = (op: MatchOp) => (op.op === 'config' ? 'k' : op.op === 'match' ? (op.children ? 'c' : 'm') : op.children ? 'v' : 'u');

/** The `ov=` text of a doc; '' when it holds nothing to carry, null when it is too long for a link. */
export function encodeOverlay(doc: OverlayDoc): string | null {
  const tokens: string[] = [];
  if (doc.metrics !== null) tokens.push(`M${doc.metrics.reduce((bits, m) => bits | (1 << PRECISION_METRICS.indexOf(m)), 0)}`);
  if (doc.colors !== null) {
    const ranges = doc.colors.filter((b) => !isUnmatchedBucket(b) && Array.isArray(b.value) && b.value.length === 2);
    if (ranges.length === 0) tokens.push('C');
    for (const b of ranges) tokens.push(`C${b.color.replace(/^#/, '')}_${(b.value as number[])[0]}_${(b.value as number[])[1]}`);
  }
  let previous = '';
  for (const op of activeOps(doc)) {
    tokens.push(kindOf(op) + frontCode(op.npu, previous), frontCode(op.bench, op.npu));
    previous = op.npu;
  }
  const text = tokens.join('*');
  return text.length > LINK_MAX_OVERLAY ? null : text;
}

const NUMBER = /^\d{1,3}(\.\d{1,9})?$/;

/**
 * The doc a link carries (every op one undo step, a config's entries one together), or null for no `ov=`. A malformed token ends the reading; what was
 * read before it stays, as with the link's open groups.
 */
export function decodeOverlay(text: string | null): OverlayDoc | null {
  if (text === null) return null;
  let metrics: PrecisionMetric[] | null = null;
  let colors: ColorBucket[] | null = null;
  const steps: MatchOp[][] = [];
  const tokens = text === '' ? [] : text.split('*', DECODE_MAX_TOKENS);
  let previous = '';
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (/^M\d{1,2}$/.test(token)) {
      const bits = Number(token.slice(1));
      const chosen = PRECISION_METRICS.filter((_, k) => bits & (1 << k));
      if (chosen.length > 0 && chosen.length < PRECISION_METRICS.length) metrics = chosen;
      continue;
    }
    if (token === 'C') {
      colors ??= [];
      continue;
    }
    const bucket = /^C([0-9a-fA-F]{6})_([^_]+)_([^_]+)$/.exec(token);
    if (bucket) {
      if (!NUMBER.test(bucket[2]) || !NUMBER.test(bucket[3])) break;
      (colors ??= []).push({ color: `#${bucket[1].toUpperCase()}`, value: [Number(bucket[2]), Number(bucket[3])], description: '' });
      continue;
    }
    const kind = OP_KINDS[token[0]];
    const npu = kind ? frontDecode(token.slice(1), previous) : null;
    const bench = npu !== null && i + 1 < tokens.length ? frontDecode(tokens[i + 1], npu) : null;
    if (!kind || npu === null || bench === null || npu === '' || bench === '') break;
    // A config's entries were one undo step where the link was made: they are one here too.
    const last = steps[steps.length - 1];
    if (kind.op === 'config' && last?.every((o) => o.op === 'config')) last.push({ ...kind, npu, bench });
    else steps.push([{ ...kind, npu, bench }]);
    previous = npu;
    i++;
  }
  return { ...EMPTY_DOC, steps, cursor: steps.length, metrics, colors };
}
