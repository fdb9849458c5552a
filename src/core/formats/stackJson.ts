import { DumpFileError } from './dumpFileError.js';
import { parsePyJson, type PyValue } from './pyJson.js';
import { pyStr, pyTruthy } from './pyFormat.js';

export const STACK_NOT_DICT_PROBLEM =
  'The format of the stack.json is incorrect, the outermost layer of stack.json should be a dict type.';

/**
 * stack.json in either shape (msprobe-format.md §1.6) → dump name → stack lines.
 * Old: `{name: [lines]}`. New (2025-05+, detected by a truthy `"0"`): `{"0": [[names], [lines]], …}`.
 * A value that is not a list becomes `[]` (msprobe would copy it verbatim; no dumper writes one).
 */
export function parseStackJson(text: string, file = 'stack.json'): Map<string, string[]> {
  const top = nativeStack(text) ?? (parsePyJson(text, { mode: 'python', file }) as PyValue);
  if (!(top instanceof Map)) throw new DumpFileError(file, STACK_NOT_DICT_PROBLEM);
  const out = new Map<string, string[]>();
  if (!pyTruthy(top.get('0'))) {
    // Old files repeat the same stack for many names; one shared array each keeps memory and export work down.
    // Candidates are found by a cheap key (sizes, first, middle and last line), then compared line by line.
    const interned = new Map<string, string[][]>();
    for (const [name, lines] of top) {
      const stack = stackLines(lines);
      let chars = 0;
      for (const line of stack) chars += line.length;
      const ends = `${stack[0] ?? ''}\u0000${stack[stack.length >> 1] ?? ''}\u0000${stack[stack.length - 1] ?? ''}`;
      const key = `${stack.length}:${chars}\u0000${ends}`;
      let candidates = interned.get(key);
      if (!candidates) interned.set(key, (candidates = []));
      const shared = candidates.find((c) => sameLines(c, stack));
      if (!shared) candidates.push(stack);
      out.set(name, shared ?? stack);
    }
    return out;
  }
  for (const group of top.values()) {
    if (!Array.isArray(group) || group.length !== 2) continue;
    const [names, lines] = group;
    if (!Array.isArray(names)) continue;
    const stack = stackLines(lines);
    // Later groups win for a repeated name, as msprobe's dict.update does; names are hashed as their str().
    for (const name of names) out.set(pyStr(name), stack);
  }
  return out;
}

/**
 * stack.json holds only names and text, so the native parser (3× faster) reads it the same way whenever the file
 * is an object of string lists: integer-like keys come first in JS objects, but those are the new format's group
 * numbers, which msprobe writes in ascending order anyway. Anything else goes through the Python-mode parser.
 */
function nativeStack(text: string): Map<string, PyValue> | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const entries = Object.entries(v);
  for (const [, value] of entries) if (!stringLists(value, 0)) return null;
  return new Map(entries as Array<[string, PyValue]>);
}

function stringLists(v: unknown, depth: number): boolean {
  if (typeof v === 'string') return depth > 0;
  return Array.isArray(v) && depth < 2 && v.every((x) => stringLists(x, depth + 1));
}

function sameLines(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function stackLines(v: PyValue): string[] {
  if (!Array.isArray(v)) return [];
  return v.map((line) => pyStr(line));
}
