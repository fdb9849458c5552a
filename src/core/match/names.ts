/**
 * Name rules of manual matching (reference-viewer.md §4.4): the forward↔backward partner of a node and the key that
 * pairs unmatched children when a match is made "with children".
 */

const SWAP: Readonly<Record<string, string>> = { forward: 'backward', backward: 'forward' };
// Python str.isdigit(); node ids are ASCII, where the two agree.
const DIGITS = /^\p{Nd}+$/u;

/** DIGITS.test(s), without the Unicode regex for ASCII text (ids of a 5,000-node module are tested many times). */
function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return c > 127 ? DIGITS.test(s) : false;
  }
  return true;
}

/**
 * The forward↔backward partner id, or null when the id names no direction.
 *
 * The direction is a dot-segment of its own in msprobe's dump names (msprobe-format.md §1.8): the last segment of an
 * API (`Functional.linear.0.forward`), the one before the call count of a module (`Module.layer.Linear.backward.0`).
 * Only that segment is swapped. The original viewer runs `str.replace('forward', 'backward')` on the whole id, which
 * also rewrites module paths such as `feed_forward` and so looked for a partner that never exists; the segment rule
 * finds it, and gives the same answer on every other id.
 */
export function partnerName(id: string): string | null {
  const segs = id.split('.');
  const n = segs.length;
  let at = -1;
  if (n >= 2 && SWAP[segs[n - 1]]) at = n - 1;
  else if (n >= 3 && SWAP[segs[n - 2]] && isDigits(segs[n - 1])) at = n - 2;
  if (at < 0) return null;
  segs[at] = SWAP[segs[at]];
  return segs.join('.');
}

/** node_type of modules: their children are grouped by module name, every other type by API name. */
const MODULE = 0;

/**
 * The original's `extract_module_name`: the attribute name of a module, `Module.layer1.0.relu.ReLU.forward.0` →
 * `relu`; when that segment is a Sequential index, the container's name one further out
 * (`Module.layer1.0.BasicBlock.forward.0` → `layer1`).
 */
function moduleName(segs: readonly string[]): string {
  const n = segs.length;
  if (n < 4) return '';
  if (!isDigits(segs[n - 4])) return segs[n - 4];
  return n > 5 ? segs[n - 5] : '';
}

/** The original's `extract_api_name`: `Functional.linear.0.forward` → `linear`, `Apis_Between_Modules.0` → its name. */
function apiName(segs: readonly string[]): string {
  const n = segs.length;
  if (n < 2) return '';
  if (!isDigits(segs[n - 2])) return segs[n - 2];
  return n > 2 ? segs[n - 3] : '';
}

/**
 * The key "with children" groups a side's unmatched children by (§4.4): module or API name plus node_type, as the
 * original's f'{name}.{node_type}'. Children with equal keys on both sides are paired in order.
 */
export function childGroupKey(id: string, nodeType: number): string {
  const segs = id.split('.');
  return `${nodeType === MODULE ? moduleName(segs) : apiName(segs)}.${nodeType}`;
}
