import { FileProblem } from '../fileProblem.js';
import { parsePyJson, PyJsonError } from '../formats/pyJson.js';

/**
 * `.vis.config` match files (reference-viewer.md §2.1, §3.5, §4.4): a flat JSON object `{ "<npu id>": "<bench id>" }`
 * next to the data file, written by the original viewer's `safe_save_data` as
 * `json.dump(pairs, f, ensure_ascii=False, indent=4)` in UTF-8: four-space indent, `": "` and `",\n"` separators,
 * non-ASCII characters as they are, no newline at the end, `{}` when empty.
 */

/** Larger texts are refused before parsing (about 400,000 pairs of 80-character ids). */
export const MAX_VIS_CONFIG_CHARS = 64 * 1024 * 1024;

/** Keys that would reach Object.prototype if a caller ever put pairs into a plain object. */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

export type VisConfigProblem = 'tooLarge' | 'badJson' | 'notObject' | 'notString' | 'emptyName' | 'reservedName';

/** `<file>: <problem>` in English; `code` lets the server and the UI say it in the user's language. */
export class VisConfigError extends FileProblem {
  constructor(
    file: string,
    readonly code: VisConfigProblem,
    problem: string,
  ) {
    super(file, problem);
    this.name = 'VisConfigError';
  }
}

/** `{tag}.vis.config` for a `.vis`; `{tag}_{step}_{rank}.vis.config` for a `.vis.db` (one file per step and rank). */
export function visConfigName(tag: string, step?: number, rank?: number): string {
  return step === undefined || rank === undefined ? `${tag}.vis.config` : `${tag}_${step}_${rank}.vis.config`;
}

/**
 * The pairs of a `.vis.config`, in file order. A repeated key keeps its first place and its last value (Python dict).
 * Throws VisConfigError (one line naming the file) for anything but a flat object of non-empty strings.
 */
export function parseVisConfig(text: string, fileName: string): Array<[string, string]> {
  if (text.length > MAX_VIS_CONFIG_CHARS) {
    throw new VisConfigError(fileName, 'tooLarge', `a match config holds at most ${MAX_VIS_CONFIG_CHARS / 2 ** 20} MiB of text`);
  }
  let parsed: unknown;
  try {
    parsed = parsePyJson(text, { mode: 'python', file: fileName, maxDepth: 2 });
  } catch (e) {
    if (e instanceof PyJsonError) throw new VisConfigError(fileName, 'badJson', `not valid JSON (line ${e.line}, column ${e.column}: ${e.problem})`);
    throw e;
  }
  if (!(parsed instanceof Map)) {
    throw new VisConfigError(fileName, 'notObject', 'expected a JSON object {"<npu node>": "<bench node>", …}');
  }
  const out: Array<[string, string]> = [];
  for (const [npu, bench] of parsed as Map<string, unknown>) {
    if (typeof bench !== 'string') {
      throw new VisConfigError(fileName, 'notString', `the value of ${JSON.stringify(npu)} is not a node name (a string)`);
    }
    if (npu === '' || bench === '') throw new VisConfigError(fileName, 'emptyName', 'an empty node name');
    if (RESERVED.has(npu)) throw new VisConfigError(fileName, 'reservedName', `${JSON.stringify(npu)} is not a node name`);
    out.push([npu, bench]);
  }
  return out;
}

/** Python's `json` string encoder with ensure_ascii=False: only `"`, `\` and control characters are escaped. */
function jsonString(s: string): string {
  return (
    '"' +
    s.replace(/["\\\u0000-\u001f]/g, (c) => {
      switch (c) {
        case '"':
          return '\\"';
        case '\\':
          return '\\\\';
        case '\n':
          return '\\n';
        case '\r':
          return '\\r';
        case '\t':
          return '\\t';
        case '\b':
          return '\\b';
        case '\f':
          return '\\f';
        default:
          return '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
      }
    }) +
    '"'
  );
}

/** The file text the original writes for these pairs (a repeated npu id: first place, last value, as a dict). */
export function serializeVisConfig(pairs: Iterable<readonly [string, string]>): string {
  const dict = new Map<string, string>();
  for (const [npu, bench] of pairs) dict.set(npu, bench);
  if (dict.size === 0) return '{}';
  const lines: string[] = [];
  for (const [npu, bench] of dict) lines.push(`    ${jsonString(npu)}: ${jsonString(bench)}`);
  return `{\n${lines.join(',\n')}\n}`;
}
