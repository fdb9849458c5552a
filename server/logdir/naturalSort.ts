/**
 * Natural order for run and tag names: digit runs compare as numbers, so `rank2` < `rank10` and
 * `compare_step9` < `compare_step10`. Case-insensitive first, raw code units as the tie-break, so the order is total.
 */
export function naturalCompare(a: string, b: string): number {
  const ca = chunks(a.toLowerCase());
  const cb = chunks(b.toLowerCase());
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i];
    const y = cb[i];
    if (x === y) continue;
    const xNum = isDigits(x);
    const yNum = isDigits(y);
    if (xNum && yNum) {
      const d = compareDigits(x, y);
      if (d !== 0) return d;
      continue;
    }
    return x < y ? -1 : 1;
  }
  if (ca.length !== cb.length) return ca.length - cb.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function chunks(s: string): string[] {
  return s.match(/\d+|\D+/g) ?? [];
}

function isDigits(s: string): boolean {
  return s.charCodeAt(0) >= 48 && s.charCodeAt(0) <= 57;
}

/** Any length (timestamps exceed 2^53): strip leading zeros, then longer is larger; `01` after `1` breaks ties. */
function compareDigits(x: string, y: string): number {
  const xs = x.replace(/^0+/, '');
  const ys = y.replace(/^0+/, '');
  if (xs.length !== ys.length) return xs.length - ys.length;
  if (xs !== ys) return xs < ys ? -1 : 1;
  return x.length - y.length;
}
