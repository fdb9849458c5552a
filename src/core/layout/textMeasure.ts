/**
 * Text width is injected (tldraw's TextManager idea): the browser measures with a canvas, tests and Node use the
 * deterministic approximation, so layout and truncation are reproducible in unit tests.
 */
export type TextMeasurer = (text: string, fontSize: number) => number;

/** Average Arial glyph is a bit over half the font size; good enough for sizing, and deterministic. */
export const approximateTextMeasurer: TextMeasurer = (text, fontSize) => text.length * fontSize * 0.6;

export const ELLIPSIS = '…';

/** The longest prefix of `text` that fits `maxWidth` with "…" appended, or `text` itself when it fits. */
export function truncateToWidth(text: string, maxWidth: number, fontSize: number, measure: TextMeasurer): string {
  if (measure(text, fontSize) <= maxWidth) return text;
  let lo = 0;
  let hi = text.length - 1;
  // Binary search keeps this O(log n) measurements per label; the canvas measurer is the expensive part.
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(text.slice(0, mid) + ELLIPSIS, fontSize) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? (measure(ELLIPSIS, fontSize) <= maxWidth ? ELLIPSIS : '') : text.slice(0, lo) + ELLIPSIS;
}
