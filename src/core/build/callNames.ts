/**
 * String tests for the call suffixes of dump names (`X.forward.3`, `X.backward.3`, `X.backward`), used on every
 * construct entry; plain string scans instead of msprobe's regexes `(\.forward\.)(\d+)$` / `(\.backward\.)(\d+)$`.
 */

export type Direction = 'forward' | 'backward';

/** Index of `.{dir}.` when `id` ends with `.{dir}.{digits}`, else -1. */
export function callSuffixAt(id: string, dir: Direction): number {
  const marker = dir === 'forward' ? '.forward.' : '.backward.';
  const at = id.lastIndexOf(marker);
  if (at < 0) return -1;
  const start = at + marker.length;
  if (start === id.length) return -1;
  for (let i = start; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
  }
  return at;
}

/** `X.{from}.N` → `X.{to}.N` (the `re.sub` of the anchored pattern); ids without the suffix are returned unchanged. */
export function swapCallDirection(id: string, from: Direction): string {
  const at = callSuffixAt(id, from);
  if (at < 0) return id;
  const to = from === 'forward' ? '.backward.' : '.forward.';
  return id.slice(0, at) + to + id.slice(at + from.length + 2);
}

/** Python `int(s)` for the digit strings dump names carry; null when msprobe's `int()` would raise. */
export function parseCount(s: string): number | null {
  return /^[+-]?\d+$/.test(s.trim()) ? Number(s) : null;
}
