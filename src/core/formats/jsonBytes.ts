import type { Utf8Decode } from './utf8.js';

/**
 * Small steps of the byte-level readers (dump.json, stack.json, construct.json): JSON's whitespace, literals, strings
 * found by their quotes. Positions are byte offsets into UTF-8; the bytes of multi-byte characters are all ≥ 0x80, so none is
 * taken for a quote, a backslash or whitespace.
 */

export function skipWs(bytes: Uint8Array, i: number): number {
  while (i < bytes.length) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** `word` (ASCII) is at bytes[at]. */
export function startsWith(bytes: Uint8Array, word: string, at: number): boolean {
  if (at + word.length > bytes.length) return false;
  for (let k = 0; k < word.length; k++) if (bytes[at + k] !== word.charCodeAt(k)) return false;
  return true;
}

/** From the opening quote of a string at i: just past its closing quote, or -1 when it is unterminated. */
export function stringEnd(bytes: Uint8Array, i: number): number {
  let j = bytes.indexOf(0x22, i + 1);
  while (j > 0 && bytes[j - 1] === 0x5c) {
    let b = j - 1;
    while (bytes[b] === 0x5c) b--;
    if (((j - 1 - b) & 1) === 0) break;
    j = bytes.indexOf(0x22, j + 1);
  }
  return j < 0 ? -1 : j + 1;
}

/**
 * The JSON string bytes[start, end) (quotes included) decoded, or null when it is not a valid JSON string (a raw
 * control character, a bad escape): the callers' general parsers then say where.
 */
export function jsonString(bytes: Uint8Array, start: number, end: number, decode: Utf8Decode): string | null {
  let escaped = false;
  for (let k = start + 1; k < end - 1; k++) {
    const c = bytes[k];
    if (c < 0x20) return null;
    if (c === 0x5c) escaped = true;
  }
  if (!escaped) return decode(bytes, start + 1, end - 1);
  try {
    return JSON.parse(decode(bytes, start, end)) as string;
  } catch {
    return null;
  }
}
