import { ELLIPSIS, truncateToWidth, type TextMeasurer } from '../../core/layout/textMeasure.js';
import { DEFAULT_LAYOUT_PARAMS, type LayoutParams } from '../../core/layout/types.js';

/**
 * The pane's geometry: the reference's constants (reference-viewer.md §4.3) with leaves wide enough for a readable
 * 8-px label, the modules' size (issue 14 item 8: 6-px leaf labels cut after ~12 characters). Four leaves to a row
 * keep a row about as wide as the widest collapsed module.
 */
export const PANE_LAYOUT_PARAMS: LayoutParams = { ...DEFAULT_LAYOUT_PARAMS, leafWidth: 78, leafFontSize: 8, maxPerRow: 4 };

/**
 * Shortens a dotted msprobe name to `maxWidth` from the front, keeping the tail that tells nodes apart (dump names,
 * msprobe-format.md §1.8: `Module.{path}.{Class}.forward.{n}`, `{Prefix}.{api}.{n}.forward`): "…fc.Linear.forward.0"
 * and "…fc.Linear.backward.0", never "Module.fc.Lin…" for both.
 *
 * Whole segments go first, as long as at least three remain and the first kept one is not a bare number (a call
 * count or layer index never leads). When even three do not fit, the middle of those three is cut and the last
 * two (direction and call count) stay. Names without dots are cut at the end as before.
 */
export function fitLabel(text: string, maxWidth: number, fontSize: number, measure: TextMeasurer): string {
  if (measure(text, fontSize) <= maxWidth) return text;
  const segments = text.split('.');
  if (segments.length < 2) return truncateToWidth(text, maxWidth, fontSize, measure);
  let shortest = text;
  for (let i = 1; i + 3 <= segments.length; i++) {
    if (/^\d+$/.test(segments[i])) continue;
    shortest = segments.slice(i).join('.');
    const candidate = ELLIPSIS + shortest;
    if (measure(candidate, fontSize) <= maxWidth) return candidate;
  }
  const parts = shortest.split('.');
  const keep = parts.slice(-Math.min(2, parts.length - 1)).join('.');
  const head = shortest.slice(0, shortest.length - keep.length);
  const cut = longestFitting(head.length, (n) => head.slice(0, n) + ELLIPSIS + keep, maxWidth, fontSize, measure);
  if (cut > 0) return head.slice(0, cut) + ELLIPSIS + keep;
  const tail = longestFitting(text.length, (n) => ELLIPSIS + text.slice(text.length - n), maxWidth, fontSize, measure);
  return tail > 0 ? ELLIPSIS + text.slice(text.length - tail) : '';
}

/** The largest n in [0, max] whose `build(n)` fits, by binary search (the canvas measurer is the expensive part). */
function longestFitting(max: number, build: (n: number) => string, maxWidth: number, fontSize: number, measure: TextMeasurer): number {
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(build(mid), fontSize) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
