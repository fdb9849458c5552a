import { DumpFileError } from './dumpFileError.js';
import { parsePyJson, type PyValue } from './pyJson.js';
import { parsePyJsonNative, toPy, TypingWalk, type DumpValue, type PlainDict } from './pyJsonNative.js';
import { scanDocument, type DocScan, type MemberSpan } from './pyJsonScan.js';

/** dump.json of one rank (msprobe-format.md §1.4), read in Python mode: NaN kept, int ≠ float, key order kept. */
export interface DumpJson<V extends DumpValue = PyValue> {
  /** `task`, `level`, `framework` as written (undefined when absent); mode detection reads them. */
  task: PyValue | undefined;
  level: PyValue | undefined;
  framework: PyValue | undefined;
  /** Copied verbatim into the output; `''` when the key is absent (msprobe's `get('dump_data_dir', '')`). */
  dumpDataDir: PyValue;
  /** dump name → entry (`input_args`, `output`, …), in file order. */
  data: Map<string, V>;
  /** The whole file, for checks that read other top-level keys (compare mode detection); `data` is `data` above. */
  top: Map<string, V | Map<string, V>>;
}

/** The whole file with every dict a Map (the hand parser). */
export function parseDumpJson(text: string, file = 'dump.json'): DumpJson {
  const top = parsePyJson(text, { mode: 'python', file }) as PyValue;
  if (!(top instanceof Map)) throw new DumpFileError(file, 'the top level must be a JSON object');
  return dumpJsonOf(top, file) as DumpJson;
}

/**
 * The whole file through `visitDumpJson` (the native parser where it reads the file exactly), so entries' dicts
 * may be plain objects; top-level values other than `data` are in the Map form. Same values, same errors as
 * `parseDumpJson`.
 */
export function readDumpJson(text: string, file = 'dump.json'): DumpJson<DumpValue> {
  const data = new Map<string, DumpValue>();
  const head = visitDumpJson(text, file, { entry: (name, entry) => void data.set(name, entry) });
  const top = new Map<string, DumpValue | Map<string, DumpValue>>(head.top);
  if (head.data === 'entries') top.set('data', data);
  return dumpJsonOf(top, file);
}

function dumpJsonOf<V extends DumpValue>(top: Map<string, V | Map<string, V>>, file: string): DumpJson<V> {
  const data = top.has('data') ? top.get('data') : new Map<string, V>();
  if (!(data instanceof Map)) throw new DumpFileError(file, "Invalid type for 'data': expected a dict (a JSON object)");
  return {
    task: top.get('task') as PyValue | undefined,
    level: top.get('level') as PyValue | undefined,
    framework: top.get('framework') as PyValue | undefined,
    dumpDataDir: top.has('dump_data_dir') ? (top.get('dump_data_dir') as PyValue) : '',
    data: data as Map<string, V>,
    top,
  };
}

/** The top level of a dump.json read by `visitDumpJson`. */
export interface DumpHead {
  /**
   * Every top-level key in file order with its value (Map form); when `data` is a dict, its entry is only a place
   * holder: the entries went to the visitor.
   */
  top: Map<string, PyValue>;
  /** `entries`: `data` is a dict whose entries were visited. */
  data: 'entries' | 'absent' | 'other';
}

/** What `visitDumpJson` hands the entries to (an object with a method: its calls stay cheap to optimise). */
export interface DumpVisitor {
  entry(name: string, entry: DumpValue): void;
}

/** Entries parsed with one `JSON.parse`: about this many characters of text. */
const BATCH_CHARS = 1 << 18;

/**
 * dump.json one entry at a time: `visit` gets each entry of `data` in file order (a name written twice: its last
 * value, in its first place, as Python's dict), parsed in batches of a few hundred, so no parse tree of the whole
 * file ever exists and each batch's tree is gone by the next (large dumps, memory). Values as `parseDumpJson`
 * gives them, except that dicts may be plain objects; errors as `parseDumpJson` throws them, before any entry is
 * visited when the file is malformed at its top levels, and always before this function returns.
 */
export function visitDumpJson(text: string, file: string, visitor: DumpVisitor): DumpHead {
  const scan = scanDocument(text);
  if (!scan || !scan.top || !scan.data || hasDuplicates(scan.data)) return visitWhole(text, file, scan, visitor);
  const top = new Map<string, PyValue>();
  // `data` keeps its first place; its (last) value is the entries visited below.
  for (const m of scan.top) top.set(m.key, m.key === 'data' ? null : toPy(memberValue(text, file, scan, m)));
  const entries = scan.data;
  for (let at = 0; at < entries.length; ) {
    if (!entries[at].plain) {
      visitor.entry(entries[at].key, memberValue(text, file, scan, entries[at]));
      at++;
      continue;
    }
    let end = at + 1;
    while (end < entries.length && entries[end].plain && entries[end].valueEnd - entries[at].keyStart < BATCH_CHARS) end++;
    let batch: PlainDict;
    try {
      batch = JSON.parse('{' + text.slice(entries[at].keyStart, entries[end - 1].valueEnd) + '}') as PlainDict;
    } catch {
      // Malformed inside these entries: the hand parser says where (and throws); should it read them after all,
      // the rest comes from its tree.
      const rest = dumpJsonOf(parsePyJson(text, { mode: 'python', file }) as Map<string, PyValue>, file).data;
      for (; at < entries.length; at++) visitor.entry(entries[at].key, rest.get(entries[at].key)!);
      break;
    }
    for (; at < end; at++) {
      const e = entries[at];
      const walk = new TypingWalk(scan, e.kindStart, e.bigStart);
      const value = walk.value(batch[e.key]);
      // A repeated key inside the entry makes the tree smaller than the text: the hand parser reads it.
      visitor.entry(e.key, walk.at === e.kindEnd && walk.keys === e.keyCount ? value : handParsed(text, file, e));
    }
  }
  return { top, data: 'entries' };
}

function hasDuplicates(entries: MemberSpan[]): boolean {
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.key)) return true;
    names.add(e.key);
  }
  return false;
}

/** One member's value: the native parser when it gives the value exactly, else the hand parser. */
function memberValue(text: string, file: string, scan: DocScan, m: MemberSpan): DumpValue {
  if (!m.plain) return handParsed(text, file, m);
  let value: DumpValue;
  try {
    value = JSON.parse(text.slice(m.valueStart, m.valueEnd)) as DumpValue;
  } catch {
    return handParsed(text, file, m);
  }
  const walk = new TypingWalk(scan, m.kindStart, m.bigStart);
  value = walk.value(value);
  return walk.at === m.kindEnd && walk.keys === m.keyCount ? value : handParsed(text, file, m);
}

/** The hand parser on one member's text; a problem there is reported for the whole file, with its position. */
function handParsed(text: string, file: string, m: MemberSpan): PyValue {
  try {
    return parsePyJson(text.slice(m.valueStart, m.valueEnd), { mode: 'python', file }) as PyValue;
  } catch (e) {
    parsePyJson(text, { mode: 'python', file });
    throw e;
  }
}

/** Files the batched reading does not handle (not an object, no `data` dict, repeated names): read whole. */
function visitWhole(text: string, file: string, scan: DocScan | null, visitor: DumpVisitor): DumpHead {
  const native = parsePyJsonNative(text, scan)?.value;
  const value = native !== undefined && native !== null && typeof native === 'object' && !Array.isArray(native) ? native : parsePyJson(text, { mode: 'python', file });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DumpFileError(file, 'the top level must be a JSON object');
  }
  const top = new Map<string, PyValue>();
  let dataValue: DumpValue | undefined;
  const entries = value instanceof Map ? value.entries() : Object.entries(value as PlainDict);
  for (const [k, v] of entries) {
    if (k === 'data') {
      dataValue = v;
      top.set(k, null);
    } else top.set(k, toPy(v));
  }
  if (dataValue === undefined) return { top, data: 'absent' };
  if (dataValue === null || typeof dataValue !== 'object' || Array.isArray(dataValue)) {
    top.set('data', toPy(dataValue));
    return { top, data: 'other' };
  }
  if (dataValue instanceof Map) for (const [name, entry] of dataValue) visitor.entry(name, entry);
  else for (const name in dataValue) visitor.entry(name, (dataValue as PlainDict)[name]);
  return { top, data: 'entries' };
}

/** The file in the hand parser's form (every dict a Map), for the rare checks that walk a whole dump generically. */
export function dumpTopAsPy(dump: DumpJson<DumpValue>): Map<string, PyValue> {
  const out = new Map<string, PyValue>();
  for (const [k, v] of dump.top) {
    if (v === dump.data) {
      const data = new Map<string, PyValue>();
      for (const [name, entry] of dump.data) data.set(name, toPy(entry));
      out.set(k, data);
    } else out.set(k, toPy(v as DumpValue));
  }
  return out;
}
