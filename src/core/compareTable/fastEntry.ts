import { crc32Hex } from '../formats/crc32.js';
import type { PyValue } from '../formats/pyJson.js';
import { pyStr, pyTypeName } from '../formats/pyFormat.js';
import { isFormulaLike } from './dumpValidation.js';
import type { OpRow, RowState } from './opRows.js';

/**
 * A fast reader for the common shape of a dump.json entry: tensor descriptors (a string `type` and a non-empty
 * `dtype`, with shape/Max/Min/Mean/Norm/requires_grad/md5/data_name) and `null`s in the input/output lists and
 * kwargs/parameters dicts. It goes from the entry's text straight to table rows, skipping the parsed tree and the
 * per-item maps of the general path (pyJson → dumpItems → opRows), which is 3–4× slower and dominates a
 * million-row compare. Anything else (scalars, slices, process groups, P2POp, debug entries, escapes, unknown
 * descriptor keys, NaN literals as keys…) returns null and the entry takes the general path, so the two paths only
 * have to agree on what this one accepts; the golden tests run both.
 */

class Bail extends Error {}
const BAIL = new Bail();

const LEAF_KEYS = new Set(['type', 'dtype', 'shape', 'Max', 'Min', 'Mean', 'Norm', 'requires_grad', 'md5', 'data_name', 'value']);
/** Descriptor types (and argument names) whose rows msprobe derives specially: left to the general path. */
const SPECIAL_TYPES = new Set(['torch.Size', 'slice', 'ellipsis', 'torch.ProcessGroup']);
const RANK_ARGS = new Set(['src', 'dst', 'group_src', 'group_dst']);
const STAT_INDEX: Record<string, number> = { Max: 0, Min: 1, Mean: 2, Norm: 3 };
const FIELDS: Array<[string, string, RowState]> = [
  ['input_args', '.input', 'input'],
  ['input_kwargs', '.input', 'input'],
  ['input', '.input', 'input'],
  ['output', '.output', 'output'],
  ['parameters', '.parameters', 'parameters'],
];
const FIELD_INDEX = new Map(FIELDS.map(([f], i) => [f, i]));
const STATE_RANK: Record<RowState, number> = { input: 0, debug: 0, parameters: 1, output: 2, parameters_grad: 3 };
const EMPTY_MD5 = crc32Hex('');

export interface FastEntry {
  rows: OpRow[];
  /** msprobe's md5 detection for this entry (a top-level list element carrying `md5`). */
  hasMd5: boolean;
  /** The first descriptor `type` naming a framework (torch… / mindspore…), in text order. */
  firstType: string | null;
}

export function fastEntryRows(apiKey: string, text: string): FastEntry | null {
  const segments = apiKey.split('.');
  const last = segments[segments.length - 1];
  if (last === 'debug') return null;
  const grads = last === 'parameters_grad' || segments[segments.length - 2] === 'parameters_grad';
  // Other keys naming parameters_grad change list naming in ways this reader does not follow.
  if (!grads && segments.includes('parameters_grad')) return null;
  try {
    const reader = new Reader(text, apiKey);
    return grads ? reader.gradEntry() : reader.entry();
  } catch (e) {
    if (e === BAIL) return null;
    throw e;
  }
}

class Reader {
  private i = 0;
  private readonly n: number;
  private hasMd5 = false;
  private firstType: string | null = null;

  constructor(
    private readonly s: string,
    private readonly apiKey: string,
  ) {
    this.n = s.length;
  }

  private ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.i = i;
  }

  private expect(c: number): void {
    this.ws();
    if (this.s.charCodeAt(this.i) !== c) throw BAIL;
    this.i++;
  }

  /** A string without escapes (escapes are rare in dumps and go to the general path). */
  private str(): string {
    this.ws();
    const s = this.s;
    if (s.charCodeAt(this.i) !== 0x22) throw BAIL;
    const start = this.i + 1;
    const end = s.indexOf('"', start);
    if (end < 0) throw BAIL;
    const v = s.slice(start, end);
    if (v.includes('\\')) throw BAIL;
    this.i = end + 1;
    return v;
  }

  /** A number literal: bigint for an int literal, number for a float one. NaN/Infinity go to the general path. */
  private num(): number | bigint {
    this.ws();
    const s = this.s;
    const start = this.i;
    let i = start;
    let float = false;
    if (s.charCodeAt(i) === 0x2d) i++;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) i++;
      else if (c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d) {
        float = true;
        i++;
      } else break;
    }
    if (i === start || (i === start + 1 && s.charCodeAt(start) === 0x2d)) throw BAIL;
    this.i = i;
    const lexeme = s.slice(start, i);
    if (float) {
      const v = Number(lexeme);
      if (v !== v) throw BAIL;
      return v;
    }
    return BigInt(lexeme);
  }

  private peek(): number {
    this.ws();
    return this.s.charCodeAt(this.i);
  }

  private literal(word: string): boolean {
    if (this.s.startsWith(word, this.i)) {
      this.i += word.length;
      return true;
    }
    return false;
  }

  entry(): FastEntry {
    const groups: OpRow[][] = [[], [], [], [], []];
    const seen = new Set<number>();
    this.expect(0x7b);
    if (this.peek() === 0x7d) this.i++;
    else {
      for (;;) {
        const key = this.str();
        this.expect(0x3a);
        const field = FIELD_INDEX.get(key);
        if (field === undefined) {
          // Unknown fields are ignored by the row reader but not by md5 detection: only booleans are safe to skip.
          this.ws();
          if (!this.literal('true') && !this.literal('false')) throw BAIL;
        } else {
          if (seen.has(field)) throw BAIL;
          seen.add(field);
          const [, suffix, state] = FIELDS[field];
          this.value(this.apiKey + suffix, state, groups[field], true);
        }
        this.ws();
        const c = this.s.charCodeAt(this.i++);
        if (c === 0x7d) break;
        if (c !== 0x2c) throw BAIL;
      }
    }
    this.ws();
    if (this.i !== this.n) throw BAIL;
    const rows = groups.flat();
    rows.sort((a, b) => STATE_RANK[a.state] - STATE_RANK[b.state]);
    return { rows, hasMd5: this.hasMd5, firstType: this.firstType };
  }

  /**
   * A `*.parameters_grad` entry: `{param: descriptor | [descriptor]}` parsed whole; list elements keep the
   * parameter's name (no index), and a descriptor carrying `md5` at the top counts for md5 detection.
   */
  gradEntry(): FastEntry {
    const out: OpRow[] = [];
    this.expect(0x7b);
    if (this.peek() === 0x7d) this.i++;
    else {
      for (;;) {
        const key = this.str();
        if (key === 'md5' || key === 'type' || isFormulaLike(key)) throw BAIL;
        this.expect(0x3a);
        const name = `${this.apiKey}.${key}`;
        if (this.peek() === 0x7b) {
          if (this.leaf(name, 'parameters_grad', out)) this.hasMd5 = true;
        } else this.value(name, 'parameters_grad', out, true, false);
        this.ws();
        const c = this.s.charCodeAt(this.i++);
        if (c === 0x7d) break;
        if (c !== 0x2c) throw BAIL;
      }
    }
    this.ws();
    if (this.i !== this.n) throw BAIL;
    return { rows: out, hasMd5: this.hasMd5, firstType: this.firstType };
  }

  /**
   * `top`: a field value itself (its list elements are what msprobe's md5 detection looks at); `indexed`: list
   * elements are named `name.k` (not under parameters_grad).
   */
  private value(name: string, state: RowState, out: OpRow[], top: boolean, indexed = true): void {
    const c = this.peek();
    if (c === 0x6e) {
      if (!this.literal('null')) throw BAIL;
      out.push(nullRow(name, state));
      return;
    }
    if (c === 0x5b) {
      this.i++;
      if (this.peek() === 0x5d) {
        this.i++;
        return;
      }
      for (let k = 0; ; k++) {
        const at = this.peek();
        const child = indexed ? `${name}.${k}` : name;
        if (at === 0x7b) {
          // A dict element is a descriptor only when it starts with "type" (see below); else a nested dict.
          const md5 = this.leafOrDict(child, state, out, indexed);
          if (top && md5) this.hasMd5 = true;
        } else this.value(child, state, out, false, indexed);
        this.ws();
        const d = this.s.charCodeAt(this.i++);
        if (d === 0x5d) return;
        if (d !== 0x2c) throw BAIL;
      }
    }
    if (c === 0x7b) {
      this.leafOrDict(name, state, out, indexed);
      return;
    }
    throw BAIL;
  }

  /** A descriptor, or a dict of named values (kwargs, parameters): told apart by a leading "type" key. */
  private leafOrDict(name: string, state: RowState, out: OpRow[], indexed: boolean): boolean {
    const save = this.i;
    this.i++;
    if (this.peek() === 0x7d) {
      this.i++;
      return false;
    }
    const firstKey = this.str();
    this.i = save;
    if (firstKey === 'type') return this.leaf(name, state, out);
    this.i++;
    for (;;) {
      const key = this.str();
      // A kwarg named md5 would count for msprobe's md5 detection; leave that to the general path.
      if (key === 'md5' || key === 'type' || isFormulaLike(key)) throw BAIL;
      this.expect(0x3a);
      this.value(`${name}.${key}`, state, out, false, indexed);
      this.ws();
      const d = this.s.charCodeAt(this.i++);
      if (d === 0x7d) return false;
      if (d !== 0x2c) throw BAIL;
    }
  }

  /** A tensor descriptor; returns whether it carries an `md5` key. */
  private leaf(name: string, state: RowState, out: OpRow[]): boolean {
    this.expect(0x7b);
    let dtype: string | null = null;
    let shape: string | null = null;
    const stats: [PyValue, PyValue, PyValue, PyValue] = ['None', 'None', 'None', 'None'];
    let rg: string | null = null;
    let md5: string | null = null;
    let dataName: string | null = null;
    let type: string | null = null;
    let hasMd5Key = false;
    let value: PyValue | undefined;
    for (;;) {
      const key = this.str();
      if (!LEAF_KEYS.has(key)) throw BAIL;
      this.expect(0x3a);
      const c = this.peek();
      switch (key) {
        case 'type':
        case 'dtype':
        case 'md5':
        case 'data_name': {
          const v = this.str();
          if (isFormulaLike(v)) throw BAIL;
          if (key === 'type') type = v;
          else if (key === 'dtype') dtype = v;
          else if (key === 'md5') {
            md5 = v;
            hasMd5Key = true;
          } else dataName = v;
          break;
        }
        case 'shape': {
          if (c !== 0x5b) throw BAIL;
          this.i++;
          const dims: string[] = [];
          if (this.peek() === 0x5d) this.i++;
          else {
            for (;;) {
              const d = this.num();
              if (typeof d !== 'bigint') throw BAIL;
              dims.push(d.toString());
              this.ws();
              const e = this.s.charCodeAt(this.i++);
              if (e === 0x5d) break;
              if (e !== 0x2c) throw BAIL;
            }
          }
          shape = `[${dims.join(', ')}]`;
          break;
        }
        case 'requires_grad':
          if (this.literal('true')) rg = 'True';
          else if (this.literal('false')) rg = 'False';
          else throw BAIL;
          break;
        case 'value':
          value = this.scalar();
          break;
        default: {
          // Max/Min/Mean/Norm: numbers; bool tensors write JSON booleans (kept as "True"/"False" strings).
          let v: PyValue;
          if (c === 0x74 || c === 0x66) {
            if (this.literal('true')) v = 'True';
            else if (this.literal('false')) v = 'False';
            else throw BAIL;
          } else if (c === 0x6e) {
            if (!this.literal('null')) throw BAIL;
            v = 'None';
          } else v = this.num();
          stats[STAT_INDEX[key]] = v;
        }
      }
      this.ws();
      const d = this.s.charCodeAt(this.i++);
      if (d === 0x7d) break;
      if (d !== 0x2c) throw BAIL;
    }
    if (type === null) throw BAIL;
    if (!dtype) {
      // A scalar argument (dumpItems' last branch): dtype from the value's Python type, the value as every
      // statistic. Sizes, slices, ellipses, process groups and rank arguments have their own rules.
      if (SPECIAL_TYPES.has(type) || RANK_ARGS.has(name.slice(name.lastIndexOf('.') + 1))) throw BAIL;
      const v = value === undefined ? null : value;
      dtype = pyTypeName(v);
      shape = '[]';
      stats[0] = stats[1] = stats[2] = stats[3] = v === null ? 'None' : typeof v === 'boolean' ? v : v;
    } else if (shape === null) throw BAIL;
    if (this.firstType === null && (type.startsWith('torch') || type.startsWith('mindspore'))) this.firstType = type;
    const fileName = dataName ? dataName : '-1';
    const dot = fileName.lastIndexOf('.');
    out.push({
      name: fileName !== '-1' ? (dot < 0 ? fileName : fileName.slice(0, dot)) : name,
      dtype,
      shape,
      stats,
      requiresGrad: rg,
      state,
      dataName: fileName,
      md5: md5 ? md5 : value === undefined ? EMPTY_MD5 : crc32Hex(pyStr(value)),
      p2pOp: null,
      p2pPeer: null,
    });
    return hasMd5Key;
  }

  /** A scalar `value`: number, bool, string or null (lists and dicts go to the general path). */
  private scalar(): PyValue {
    const c = this.peek();
    if (c === 0x22) {
      const v = this.str();
      if (isFormulaLike(v)) throw BAIL;
      return v;
    }
    if (this.literal('true')) return true;
    if (this.literal('false')) return false;
    if (this.literal('null')) return null;
    return this.num();
  }
}

function nullRow(name: string, state: RowState): OpRow {
  return {
    name,
    dtype: 'None',
    shape: 'None',
    stats: ['None', 'None', 'None', 'None'],
    requiresGrad: null,
    state,
    dataName: '-1',
    md5: null,
    p2pOp: null,
    p2pPeer: null,
  };
}
