import type { DumpValue } from '../../src/core/formats/pyJsonNative.js';

/**
 * A canonical text of a parsed dump value (dicts as Maps or plain objects): Python types (int `i1` vs float `f1`),
 * key order, NaN and -0 all show, so two readers' values compare as text.
 */
export function canon(v: DumpValue | undefined): string {
  if (v === undefined) return 'U';
  if (v === null) return 'N';
  switch (typeof v) {
    case 'boolean':
      return v ? 'T' : 'F';
    case 'string':
      return JSON.stringify(v);
    case 'bigint':
      return `i${v}`;
    case 'number':
      return Object.is(v, -0) ? 'f-0' : `f${v}`;
  }
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  const entries = v instanceof Map ? [...v] : Object.entries(v);
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canon(x)}`).join(',')}}`;
}
