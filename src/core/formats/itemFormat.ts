import type { RawItem } from '../model/graph.js';
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

/** Keys `format_node_data` deletes for this era, mode and node. */
function droppedKeys(nodeId: string, opts: ItemFormatOptions): Set<string> {
  // E2 had neither `requires_grad` nor its compare column (both 2025-08-01); it exported `state` instead.
  const dropped = new Set<string>(
    opts.era === 'vis202507' ? ['full_op_name', 'requires_grad', 'Requires_grad Consistent'] : ['full_op_name', 'state'],
  );
  if (!opts.md5Mode) dropped.add('md5');
  if (nodeId.includes('batch_isend_irecv')) for (const k of BATCH_P2P_KEYS) dropped.add(k);
  return dropped;
}

/** The formatted items as maps (tests, tools); the writers use `itemsJson`, which skips the maps. */
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
  return new JsonFragment((indent, level) => renderItems(data, droppedKeys(nodeId, opts), indent, level));
}

const NULL_ITEM_COMPACT = '{"value": "null"}';

function renderItems(data: ReadonlyMap<string, RawItem>, dropped: ReadonlySet<string>, indent: number | null, level: number): string {
  if (data.size === 0) return '{}';
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
    out += keyJson(key) + ': ';
    // Same walk as forEachField, inlined: this loop runs for every field of every item of a run.
    const processGroup = item.get('type') === 'torch.ProcessGroup';
    let allNull = false;
    let body = fieldOpen;
    let firstField = true;
    for (const [k, value] of item) {
      if (dropped.has(k) || (processGroup && !PROCESS_GROUP_KEYS.has(k))) continue;
      let text: string;
      if (k === 'error_key') {
        const v = formatErrorKey(value);
        text = typeof v === 'string' ? pyJsonString(v) : pyJsonDumps(v);
      } else {
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

// Short string values repeat endlessly ("torch.Tensor", "-1", "True"): their formatted JSON text is cached.
const valueCache = new Map<string, string>();

/** The JSON text of one formatted value. */
function valueJson(value: PyValue): string {
  if (typeof value === 'string' && value.length <= 40) {
    let s = valueCache.get(value);
    if (s === undefined) {
      s = pyJsonString(formatString(value));
      if (valueCache.size < 50_000) valueCache.set(value, s);
    }
    return s;
  }
  return pyJsonString(formatValue(value));
}

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
  if (ax < 1e9) {
    // ≤ 15 significant digits: the 6-place decimal is already the shortest repr of round(x, 6), minus trailing 0s.
    let s = pyFixed(x, 6);
    let end = s.length;
    while (s.charCodeAt(end - 1) === 0x30) end--;
    if (s.charCodeAt(end - 1) === 0x2e) end++;
    s = s.slice(0, end);
    return s;
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
  const c = s.charCodeAt(0);
  if (c >= 0x30 && c <= 0x39) {
    const m = /^(\d{1,20})\.(\d{1,20})(%?)$/.exec(s);
    if (m && m[2].length > 6) return pyFixed(Number(`${m[1]}.${m[2]}`), 6) + m[3];
  }
  return s;
}
