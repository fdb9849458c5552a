import { DumpFileError } from './dumpFileError.js';
import { parsePyJson, type PyValue } from './pyJson.js';
import { parsePyJsonNative, toPy, TypingWalk, type DumpValue, type PlainDict } from './pyJsonNative.js';
import { scanDocument, type DocScan, type MemberSpan } from './pyJsonScan.js';
import { textOfBytes } from './textLimit.js';
import { utf8Bytes, utf8Decode, type Utf8Decode } from './utf8.js';

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
 * The whole file (its text, or its UTF-8 bytes) through `visitDumpJson`, so entries' dicts may be plain objects;
 * top-level values other than `data` are in the Map form. Same values, same errors as `parseDumpJson`.
 */
export function readDumpJson(src: string | Uint8Array, file = 'dump.json', decode: Utf8Decode = utf8Decode): DumpJson<DumpValue> {
  const data = new Map<string, DumpValue>();
  const head = visitDumpJson(src, file, { entry: (name, entry) => void data.set(name, entry) }, decode);
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

/**
 * Entries parsed with one `JSON.parse`: about this many bytes of text. Under V8's large-object size (128 KiB), so
 * each batch's text is an ordinary young object, gone at the next scavenge.
 */
const BATCH_BYTES = 1 << 16;

/** dump.json's bytes, and its text, decoded only if a rare path needs it whole (the hand parser, its errors). */
class DumpSource {
  readonly bytes: Uint8Array;
  private whole: string | undefined;

  constructor(
    src: string | Uint8Array,
    readonly file: string,
    readonly decode: Utf8Decode,
  ) {
    if (typeof src === 'string') {
      this.whole = src;
      this.bytes = utf8Bytes(src);
    } else this.bytes = src;
  }

  /** The text of bytes[start, end). */
  slice(start: number, end: number): string {
    return this.decode(this.bytes, start, end);
  }

  /** The whole text; a file too large for one string is reported as such. */
  text(): string {
    return (this.whole ??= textOfBytes(this.bytes, this.file, this.decode));
  }

  /** The hand parser's tree of the whole file (and its errors, with line and column). */
  parsed(): PyValue {
    return parsePyJson(this.text(), { mode: 'python', file: this.file }) as PyValue;
  }
}

/**
 * dump.json one entry at a time: `visit` gets each entry of `data` in file order (a name written twice: its last
 * value, in its first place, as Python's dict), parsed in batches of a few hundred, so no parse tree of the whole
 * file ever exists and each batch's tree is gone by the next (large dumps, memory). Given the file's bytes, its
 * text is never made whole either (see pyJsonScan.ts), unless the file is malformed or unusual. Values as
 * `parseDumpJson` gives them, except that dicts may be plain objects; errors as `parseDumpJson` throws them, before
 * any entry is visited when the file is malformed at its top levels, and always before this function returns.
 * `decode` turns byte ranges into text (Node callers pass Buffer's, faster for the short keys).
 */
export function visitDumpJson(src: string | Uint8Array, file: string, visitor: DumpVisitor, decode: Utf8Decode = utf8Decode): DumpHead {
  const doc = new DumpSource(src, file, decode);
  const scan = scanDocument(doc.bytes, decode);
  if (!scan || !scan.top || !scan.data || hasDuplicates(scan.data)) return visitWhole(doc, scan, visitor);
  const top = new Map<string, PyValue>();
  // `data` keeps its first place; its (last) value is the entries visited below.
  for (const m of scan.top) top.set(m.key, m.key === 'data' ? null : toPy(memberValue(doc, scan, m)));
  const entries = scan.data;
  for (let at = 0; at < entries.length; ) {
    if (!entries[at].plain) {
      visitor.entry(entries[at].key, memberValue(doc, scan, entries[at]));
      at++;
      continue;
    }
    let end = at + 1;
    while (end < entries.length && entries[end].plain && entries[end].valueEnd - entries[at].keyStart < BATCH_BYTES) end++;
    let batch: PlainDict;
    try {
      batch = JSON.parse('{' + doc.slice(entries[at].keyStart, entries[end - 1].valueEnd) + '}') as PlainDict;
    } catch {
      // Malformed inside these entries: the hand parser says where (and throws); should it read them after all,
      // the rest comes from its tree.
      const rest = dumpJsonOf(doc.parsed() as Map<string, PyValue>, file).data;
      for (; at < entries.length; at++) visitor.entry(entries[at].key, rest.get(entries[at].key)!);
      break;
    }
    for (; at < end; at++) {
      const e = entries[at];
      const walk = new TypingWalk(scan, e.kindStart, e.bigStart);
      const value = walk.value(batch[e.key]);
      // A repeated key inside the entry makes the tree smaller than the text: the hand parser reads it.
      visitor.entry(e.key, walk.at === e.kindEnd && walk.keys === e.keyCount ? value : handParsed(doc, e));
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
function memberValue(doc: DumpSource, scan: DocScan, m: MemberSpan): DumpValue {
  if (!m.plain) return handParsed(doc, m);
  let value: DumpValue;
  try {
    value = JSON.parse(doc.slice(m.valueStart, m.valueEnd)) as DumpValue;
  } catch {
    return handParsed(doc, m);
  }
  const walk = new TypingWalk(scan, m.kindStart, m.bigStart);
  value = walk.value(value);
  return walk.at === m.kindEnd && walk.keys === m.keyCount ? value : handParsed(doc, m);
}

/** The hand parser on one member's text; a problem there is reported for the whole file, with its position. */
function handParsed(doc: DumpSource, m: MemberSpan): PyValue {
  try {
    return parsePyJson(doc.slice(m.valueStart, m.valueEnd), { mode: 'python', file: doc.file }) as PyValue;
  } catch (e) {
    doc.parsed();
    throw e;
  }
}

/** Files the batched reading does not handle (not an object, no `data` dict, repeated names): read whole. */
function visitWhole(doc: DumpSource, scan: DocScan | null, visitor: DumpVisitor): DumpHead {
  const native = scan ? parsePyJsonNative(doc.bytes, scan, doc.decode)?.value : undefined;
  const value = native !== undefined && native !== null && typeof native === 'object' && !Array.isArray(native) ? native : doc.parsed();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DumpFileError(doc.file, 'the top level must be a JSON object');
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
