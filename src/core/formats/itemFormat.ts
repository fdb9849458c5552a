import { Item, type ItemShape, type RawItem } from '../model/item.js';
import type { FormatEra } from './formatEra.js';
import type { PyValue } from './pyJson.js';
import { pyExp, pyFixed, pyFloatRepr, pyRound, pyStr } from './pyFormat.js';
import { JsonFragment, newlineIndent, pyJsonDumps, pyJsonString } from './pyJsonWrite.js';

/**
 * Export formatting of input/output items (msprobe-format.md §4.1, `format_node_data`): every value becomes the
 * string Python would print. Applied to NPU and Bench items alike, compare columns included, so compare code stores
 * raw values in items (bigint = int, number = float, string, boolean, null) and leaves the text to this module.
 */

export interface ItemFormatOptions {
  era: FormatEra;
  /** md5 compare keeps the `md5` key; every other mode drops it. */
  md5Mode: boolean;
}

/** The item as written: string values, except an `error_key` value, which keeps its JSON form. */
export type FormattedItem = Map<string, string | PyValue>;

const PROCESS_GROUP_KEYS = new Set(['type', 'group_ranks', 'group_id', 'data_name']);
const BATCH_P2P_KEYS = ['op', 'peer', 'tag', 'group_id'];

/** Keys `format_node_data` deletes for this era, mode and node (one shared set per combination). */
function droppedKeys(nodeId: string, opts: ItemFormatOptions): ReadonlySet<string> {
  const batch = nodeId.includes('batch_isend_irecv');
  const slot = (opts.era === 'vis202507' ? 4 : 0) + (opts.md5Mode ? 2 : 0) + (batch ? 1 : 0);
  return (droppedSets[slot] ??= makeDroppedKeys(opts.era, opts.md5Mode, batch));
}
const droppedSets: Array<Set<string> | undefined> = [];

function makeDroppedKeys(era: FormatEra, md5Mode: boolean, batch: boolean): Set<string> {
  // E2 had neither `requires_grad` nor its compare column (both 2025-08-01); it exported `state` instead.
  const dropped = new Set<string>(
    era === 'vis202507' ? ['full_op_name', 'requires_grad', 'Requires_grad Consistent'] : ['full_op_name', 'state'],
  );
  if (!md5Mode) dropped.add('md5');
  if (batch) for (const k of BATCH_P2P_KEYS) dropped.add(k);
  return dropped;
}

/** The formatted items as maps (tests, tools); the writers use `itemsJsonText`, which skips the maps. */
export function formatItems(data: ReadonlyMap<string, RawItem>, nodeId: string, opts: ItemFormatOptions): Map<string, FormattedItem> {
  const dropped = droppedKeys(nodeId, opts);
  const out = new Map<string, FormattedItem>();
  for (const [key, item] of data) {
    const formatted: FormattedItem = new Map();
    const allNull = forEachField(item, dropped, (k, v) => formatted.set(k, v));
    out.set(key, allNull ? new Map([['value', 'null']]) : formatted);
  }
  return out;
}

/** The formatted items as JSON text at whatever depth the writer places them. */
export function itemsJson(data: ReadonlyMap<string, RawItem>, nodeId: string, opts: ItemFormatOptions): JsonFragment {
  return new JsonFragment((indent, level) => itemsJsonText(data, nodeId, opts, indent, level));
}

/** The formatted items as the JSON text `json.dumps` writes at `level` (indent null = compact, as in `.vis.db`). */
export function itemsJsonText(
  data: ReadonlyMap<string, RawItem>,
  nodeId: string,
  opts: ItemFormatOptions,
  indent: number | null = null,
  level = 0,
): string {
  if (data.size === 0) return '{}';
  return renderItems(data, droppedKeys(nodeId, opts), indent, level);
}

const NULL_ITEM_COMPACT = '{"value": "null"}';

/**
 * Which fields of an item shape survive `format_node_data`, with their JSON key text: computed once per shape and
 * set of dropped keys, since a run's items share a few dozen shapes.
 */
interface RenderPlan {
  /** Positions in the item's values, in order. */
  keep: number[];
  /** `"key": ` of each kept field. */
  keyTexts: string[];
  /**
   * Each kept field's text before its value at one layout (`{` or the separator, its indent, `"key": `): one
   * string a field instead of three keeps the output's ropes shorter. Made for the last layout asked for (a file
   * has one), with `layout` its field separator.
   */
  prefixes: string[];
  layout: string | null;
  /** Index in `keep` of `Max` (a "null" Max makes the item `{"value": "null"}`), or -1. */
  maxAt: number;
  /** Index in `keep` of `error_key` (E0 files), or -1. */
  errorKeyAt: number;
  /** Position of `type` in the values (process groups keep fewer keys), or -1. */
  typeIndex: number;
}

const plans = new WeakMap<ItemShape, Map<ReadonlySet<string>, RenderPlan>>();

function planFor(shape: ItemShape, dropped: ReadonlySet<string>): RenderPlan {
  let byDropped = plans.get(shape);
  if (!byDropped) plans.set(shape, (byDropped = new Map()));
  let plan = byDropped.get(dropped);
  if (plan) return plan;
  plan = { keep: [], keyTexts: [], prefixes: [], layout: null, maxAt: -1, errorKeyAt: -1, typeIndex: shape.index.get('type') ?? -1 };
  shape.keys.forEach((k, i) => {
    if (dropped.has(k)) return;
    if (k === 'Max') plan!.maxAt = plan!.keep.length;
    if (k === 'error_key') plan!.errorKeyAt = plan!.keep.length;
    plan!.keep.push(i);
    plan!.keyTexts.push(keyJson(k) + ': ');
  });
  byDropped.set(dropped, plan);
  return plan;
}

function prefixesFor(plan: RenderPlan, fieldOpen: string, fieldSep: string): string[] {
  if (plan.layout !== fieldSep) {
    plan.prefixes = plan.keyTexts.map((k, j) => (j === 0 ? fieldOpen : fieldSep) + k);
    plan.layout = fieldSep;
  }
  return plan.prefixes;
}

function renderItems(data: ReadonlyMap<string, RawItem>, dropped: ReadonlySet<string>, indent: number | null, level: number): string {
  const itemSep = indent === null ? ', ' : ',' + newlineIndent(indent * (level + 1));
  const fieldSep = indent === null ? ', ' : ',' + newlineIndent(indent * (level + 2));
  const open = indent === null ? '{' : '{' + newlineIndent(indent * (level + 1));
  const fieldOpen = indent === null ? '{' : '{' + newlineIndent(indent * (level + 2));
  const fieldClose = indent === null ? '}' : newlineIndent(indent * (level + 1)) + '}';
  const nullItem = indent === null ? NULL_ITEM_COMPACT : fieldOpen + '"value": "null"' + fieldClose;
  let out = open;
  let firstItem = true;
  for (const [key, item] of data) {
    if (!firstItem) out += itemSep;
    firstItem = false;
    out += pyJsonString(key) + ': ';
    if (item instanceof Item) {
      const plan = planFor(item.shape, dropped);
      const vals = item.vals;
      if (plan.typeIndex < 0 || vals[plan.typeIndex] !== 'torch.ProcessGroup') {
        const { keep, maxAt, errorKeyAt } = plan;
        if (keep.length === 0) {
          out += '{}';
          continue;
        }
        const prefixes = prefixesFor(plan, fieldOpen, fieldSep);
        let allNull = false;
        let body = '';
        for (let j = 0; j < keep.length; j++) {
          const value = vals[keep[j]];
          let text: string;
          if (j === errorKeyAt) text = errorKeyJson(value);
          else {
            text = valueJson(value);
            if (j === maxAt && text === '"null"') allNull = true;
          }
          body += prefixes[j] + text;
        }
        out += allNull ? nullItem : body + fieldClose;
        continue;
      }
    }
    // Any other item (a Map, a process group): the same walk, key by key.
    const processGroup = item.get('type') === 'torch.ProcessGroup';
    let allNull = false;
    let body = fieldOpen;
    let firstField = true;
    for (const [k, value] of item) {
      if (dropped.has(k) || (processGroup && !PROCESS_GROUP_KEYS.has(k))) continue;
      let text: string;
      if (k === 'error_key') text = errorKeyJson(value);
      else {
        text = valueJson(value);
        if (k === 'Max' && text === '"null"') allNull = true;
      }
      if (!firstField) body += fieldSep;
      body += keyJson(k) + ': ' + text;
      firstField = false;
    }
    out += allNull ? nullItem : firstField ? '{}' : body + fieldClose;
  }
  return out + (indent === null ? '}' : newlineIndent(indent * level) + '}');
}

function errorKeyJson(value: PyValue): string {
  const v = formatErrorKey(value);
  return typeof v === 'string' ? pyJsonString(v) : pyJsonDumps(v);
}

// Short string values repeat endlessly ("torch.Tensor", "-1", "True"): their formatted JSON text is cached. Values
// that start with a digit (relative errors such as "1.554932%") are nearly all distinct and are not.
const valueCache = new Map<string, string>();

/** The JSON text of one formatted value. */
function valueJson(value: PyValue): string {
  switch (typeof value) {
    case 'string': {
      const c = value.charCodeAt(0);
      if (value.length > 40 || (c >= 0x30 && c <= 0x39)) return pyJsonString(formatString(value));
      let s = valueCache.get(value);
      if (s === undefined) {
        s = pyJsonString(formatString(value));
        if (valueCache.size < 50_000) valueCache.set(value, s);
      }
      return s;
    }
    case 'number':
      // Formatted floats are digits, '.', '-', 'e', '+', "nan", "inf": nothing to escape.
      return '"' + formatFloat(value) + '"';
    case 'bigint':
      return '"' + value.toString() + '"';
    case 'boolean':
      return value ? '"True"' : '"False"';
  }
  if (value === null) return '"null"';
  if (!Array.isArray(value) || value.length > 8) return pyJsonString(pyStr(value));
  // Short lists are mostly tensor shapes, which items share (one list per distinct shape): each is formatted once.
  let text = listTexts.get(value);
  if (text === undefined) listTexts.set(value, (text = pyJsonString(pyStr(value))));
  return text;
}

const listTexts = new WeakMap<PyValue[], string>();

// Item keys repeat endlessly ("Max", "data_name", …); their JSON text is cached.
const keyCache = new Map<string, string>();
function keyJson(k: string): string {
  let s = keyCache.get(k);
  if (s === undefined) {
    s = pyJsonString(k);
    if (keyCache.size < 10_000 && k.length < 64) keyCache.set(k, s);
  }
  return s;
}

/**
 * `_format_data` for one item: calls `emit` with each kept key and its text, in order. Returns true when the item
 * is a `None` argument (Max formats to "null"): msprobe then writes only `{"value": "null"}`.
 */
function forEachField(item: RawItem, dropped: ReadonlySet<string>, emit: (key: string, value: string | PyValue) => void): boolean {
  const processGroup = item.get('type') === 'torch.ProcessGroup';
  let allNull = false;
  for (const [key, value] of item) {
    if (dropped.has(key) || (processGroup && !PROCESS_GROUP_KEYS.has(key))) continue;
    const text = key === 'error_key' ? formatErrorKey(value) : formatValue(value);
    if (key === 'Max' && text === 'null') allNull = true;
    emit(key, text);
  }
  return allNull;
}

/** One value of `_format_data`. */
export function formatValue(value: PyValue): string {
  if (typeof value === 'string') return formatString(value);
  if (typeof value === 'number') return formatFloat(value);
  if (value === null) return 'null';
  return pyStr(value);
}

/** Scientific floats keep 6 significant decimals ("1.000000e-07"); others are `str(round(x, 6))`. */
function formatFloat(x: number): string {
  if (x !== x) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const ax = x < 0 ? -x : x;
  // str(x) uses an exponent exactly below 1e-4 and from 1e16.
  if (ax < 1e-4 || ax >= 1e16) return pyExp(x, 6);
  // Whole numbers (statistics of integer tensors) are exact: "31999.0".
  if (Number.isInteger(x)) return x + '.0';
  if (ax < 1e9) {
    // ≤ 15 significant digits: the 6-place decimal is already the shortest repr of round(x, 6), minus trailing 0s.
    const s = pyFixed(x, 6);
    let end = s.length;
    while (s.charCodeAt(end - 1) === 0x30) end--;
    if (s.charCodeAt(end - 1) === 0x2e) end++;
    return end === s.length ? s : s.slice(0, end);
  }
  return pyFloatRepr(pyRound(x, 6));
}

/** `error_key` (E0 files) goes through the same branches but skips the final `str()`. */
function formatErrorKey(value: PyValue): PyValue {
  if (typeof value === 'string') return formatString(value);
  if (value === null) return 'null';
  if (typeof value === 'number') return pyFloatRepr(value).includes('e') ? pyExp(value, 6) : pyRound(value, 6);
  return value;
}

/** Quotes removed, `None` → `null`, a plain decimal (optionally a percentage) cut to 6 places. */
function formatString(s: string): string {
  if (s.includes("'")) s = s.replaceAll("'", '');
  if (s.includes('None')) s = s.replaceAll('None', 'null');
  // /^(\d{1,20})\.(\d{1,20})(%?)$/ with more than 6 decimals, by hand (this runs for every relative error).
  const n = s.length;
  let i = 0;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  if (i === 0 || i > 20 || s.charCodeAt(i) !== 0x2e) return s;
  let j = i + 1;
  while (j < n && isDigit(s.charCodeAt(j))) j++;
  const decimals = j - i - 1;
  if (decimals <= 6 || decimals > 20) return s;
  if (j === n) return pyFixed(Number(s), 6);
  if (j === n - 1 && s.charCodeAt(j) === 0x25) return pyFixed(Number(s.slice(0, j)), 6) + '%';
  return s;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
