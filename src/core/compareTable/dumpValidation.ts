import type { PyValue } from '../formats/pyJson.js';
import { pyTruthy } from '../formats/pyFormat.js';
import { FileProblem } from '../fileProblem.js';

/**
 * The checks that abort msprobe's compare before any table is made (msprobe-compare.md §2.6; msprobe
 * `check_dump_json_str`, `check_stack_json_str`, `check_op_str_pattern_valid`): names and string values that a
 * spreadsheet would read as a formula, a `shape` that is not a list, a `requires_grad` that is not a bool.
 */

/** Cells starting with these (or containing `;` followed by one) are formula injection in Excel. */
const STRING_BLACKLIST = /^[＋－＝％＠+\-=%@]|;[＋－＝％＠+\-=%@]/;

export class DumpContentError extends FileProblem {
  override name = 'DumpContentError';
}

export function isFormulaLike(s: string): boolean {
  return STRING_BLACKLIST.test(s);
}

const MAX_DEPTH = 400;

function checkLeaf(key: string, value: PyValue, op: string, file: string): void {
  if (key === 'shape' && !Array.isArray(value)) {
    throw new DumpContentError(file, `shape of input or output of ${op} is not list or tuple, please check!`);
  }
  if (key === 'requires_grad' && typeof value !== 'boolean') {
    throw new DumpContentError(file, `requires_grad of input or output of ${op} is not bool, please check!`);
  }
  if (typeof value === 'string' && isFormulaLike(value)) {
    throw new DumpContentError(file, `data info of ${op} contains special characters, please check!`);
  }
}

function checkKeyValue(v: PyValue, op: string, file: string, depth: number): void {
  // msprobe logs and stops descending past its recursion limit instead of failing.
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(v)) {
    for (const x of v) checkKeyValue(x, op, file, depth + 1);
  } else if (v instanceof Map) {
    for (const [k, x] of v) {
      if (x instanceof Map) checkKeyValue(x, op, file, depth + 1);
      else checkLeaf(k, x, op, file);
    }
  }
}

/** The API key and the descriptors of its inputs, kwargs and outputs (parameters are not checked, as in msprobe). */
export function validateDumpEntry(apiKey: string, entry: PyValue, file: string): void {
  if (isFormulaLike(apiKey)) throw new DumpContentError(file, `api name ${apiKey} contains special characters, please check!`);
  if (!(entry instanceof Map)) return;
  const inputArgs = entry.get('input_args');
  const args = [pyTruthy(inputArgs) ? inputArgs : entry.get('input'), entry.get('input_kwargs'), entry.get('output')];
  for (const arg of args) {
    if (arg === undefined || !pyTruthy(arg)) continue;
    if (arg instanceof Map) checkKeyValue(arg, apiKey, file, 0);
    else if (Array.isArray(arg)) {
      for (const element of arg) if (pyTruthy(element)) checkKeyValue(element, apiKey, file, 0);
    }
  }
}

/** A stack.json value: a list of lines without formula-like text. */
export function validateStack(apiKey: string, stack: PyValue, file: string): string[] {
  if (!Array.isArray(stack)) {
    throw new DumpContentError(file, `Expected stack_info to be a list, but got ${pyTypeWord(stack)} for '${apiKey}'`);
  }
  for (const line of stack) {
    if (typeof line === 'string' && isFormulaLike(line)) {
      throw new DumpContentError(file, `stack info of ${apiKey} contains special characters, please check!`);
    }
  }
  return stack as string[];
}

function pyTypeWord(v: PyValue): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'float';
  return v instanceof Map ? 'dict' : 'list';
}
