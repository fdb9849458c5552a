import type { PyValue } from '../formats/pyJson.js';
import { pyRepr, pyStr, pyStrRepr, pyTruthy } from '../formats/pyFormat.js';
import { validateStack } from './dumpValidation.js';
import type { NameSource } from './nameColumn.js';
import { NameIndex } from './nameIndex.js';

/**
 * stack.json for the NPU_Stack_Info column (msprobe-compare.md §2.5), collected entry by entry while the file
 * streams: each NPU API gets the id of its stack, and identical stacks (most APIs of a layer share a few) are kept
 * once, with the `str(list)` text the table prints. Not the graph side's parseStackJson: the table needs the lines
 * as written for Python's repr, and a stack that is not a list is an error here (msprobe `check_stack_json_str`).
 *
 * Format: new (`{"0": [[api names], [lines]], …}`) when the first key is a truthy "0", else old (`{api: [lines]}`);
 * later entries win, as with msprobe's dict update.
 */
/** What a worker thread needs of the stacks to write table rows. */
export interface StackTableMessage {
  ids: Int32Array;
  texts: string[];
}

const RAW_CACHE_CHARS = 4 << 20;

/**
 * `str(lines)`, as one flat string: joined from its lines' reprs rather than appended piece by piece, whose chain of
 * pieces would be kept with the text of every stack.
 */
function stackRepr(lines: PyValue): string {
  if (!Array.isArray(lines) || !lines.every((l) => typeof l === 'string')) return pyRepr(lines);
  return ['[', lines.map((l) => pyStrRepr(l as string)).join(', '), ']'].join('');
}

export class StackTable {
  /** API key → NPU API index, hashed over the table's own key bytes (no map of a few hundred thousand strings). */
  private readonly apiIndex: NameIndex | null;
  private ids: Int32Array;
  private readonly lists: PyValue[] = [];
  private texts: string[] = [];
  private readonly byText = new Map<string, number>();
  /**
   * Raw JSON text of an old-format value → stack id: repeated stacks are neither parsed nor printed again. Kept up to
   * RAW_CACHE_CHARS: a file whose every API has a stack of its own (issue 19) would be held a second time.
   */
  private readonly byJson = new Map<string, number>();
  private byJsonChars = 0;
  /** Each distinct line once: most lines repeat across stacks. */
  private readonly frames = new Map<string, string>();
  private format: 'old' | 'new' | null = null;

  constructor(
    apiKeys: NameSource | null,
    private readonly file: string,
  ) {
    this.apiIndex = apiKeys ? new NameIndex(apiKeys) : null;
    this.ids = new Int32Array(apiKeys?.length ?? 0).fill(-1);
  }

  /** One top-level entry given as JSON text; `parse` reads it (only when this text was not seen before). */
  addJson(key: string, json: string, parse: () => PyValue): void {
    if (this.format === 'old') {
      const api = this.apiIndex?.first(key) ?? -1;
      if (api < 0) return;
      const id = this.byJson.get(json);
      if (id !== undefined) {
        this.ids[api] = id;
        return;
      }
      this.add(key, parse());
      if (this.ids[api] >= 0 && this.byJsonChars < RAW_CACHE_CHARS) {
        this.byJson.set(json, this.ids[api]);
        this.byJsonChars += json.length;
      }
      return;
    }
    this.add(key, parse());
  }

  /** One top-level entry of stack.json. */
  add(key: string, value: PyValue): void {
    if (this.format === null) this.format = key === '0' && pyTruthy(value) ? 'new' : 'old';
    if (this.format === 'old') {
      this.set(key, value);
      return;
    }
    if (!Array.isArray(value) || value.length !== 2 || !Array.isArray(value[0])) return;
    for (const name of value[0]) this.set(pyStr(name), value[1]);
  }

  private set(apiKey: string, lines: PyValue): void {
    const api = this.apiIndex?.first(apiKey) ?? -1;
    if (api < 0) return;
    if (lines === null) {
      this.ids[api] = -1;
      return;
    }
    validateStack(apiKey, lines, this.file);
    const text = stackRepr(lines);
    let id = this.byText.get(text);
    if (id === undefined) {
      id = this.texts.length;
      this.texts.push(text);
      this.lists.push(this.intern(lines as PyValue[]));
      this.byText.set(text, id);
    }
    this.ids[api] = id;
  }

  private intern(lines: PyValue[]): PyValue[] {
    return lines.map((line) => {
      if (typeof line !== 'string') return line;
      const known = this.frames.get(line);
      if (known === undefined) this.frames.set(line, line);
      return known ?? line;
    });
  }

  toMessage(): StackTableMessage {
    return { ids: this.ids, texts: this.texts };
  }

  /** A table for writing rows only (`list()` is not available). */
  static fromMessage(m: StackTableMessage): StackTable {
    const t = new StackTable(null, '');
    t.ids = m.ids;
    t.texts = m.texts;
    return t;
  }

  /** `str(stack)` of an API (by its index in the NPU table), or null when it has none. */
  text(api: number): string | null {
    const id = this.ids[api];
    return id < 0 ? null : this.texts[id];
  }

  /** The stack lines as parsed (first-diff JSON output). */
  list(api: number): PyValue | null {
    const id = this.ids[api];
    return id < 0 ? null : this.lists[id];
  }
}
