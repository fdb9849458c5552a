import { approximateTextMeasurer, type TextMeasurer } from '../../core/layout/textMeasure.js';

/** Must match the font the node labels are drawn with (NodeShape). */
export const LABEL_FONT_FAMILY = 'Arial, Helvetica, sans-serif';

/**
 * Real text widths from a canvas, memoised per (size, text): labels repeat a lot (`Tensor.__add__…`), and
 * truncation measures each label a few times.
 */
export function createCanvasTextMeasurer(): TextMeasurer {
  const context = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  if (!context) return approximateTextMeasurer;
  const cache = new Map<string, number>();
  return (text, fontSize) => {
    const key = `${fontSize}|${text}`;
    let width = cache.get(key);
    if (width === undefined) {
      context.font = `${fontSize}px ${LABEL_FONT_FAMILY}`;
      width = context.measureText(text).width;
      if (cache.size > 50_000) cache.clear();
      cache.set(key, width);
    }
    return width;
  };
}
