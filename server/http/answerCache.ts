import type { GraphStore } from '../store/graphStore.js';

/**
 * Serialised `/children` answers, least recently used first out, within a byte budget. Many users expanding the same
 * groups of one file (a team on one run) then cost a lookup and a send instead of a walk and a JSON.stringify of up to
 * 400 children each. Keys carry the store object's number, so a file rewritten on disk (a new store) never answers
 * from the old one's entries; those age out.
 */
export class AnswerCache {
  private readonly entries = new Map<string, string>();
  private readonly storeIds = new WeakMap<GraphStore, number>();
  private nextId = 0;
  private bytes = 0;

  constructor(private readonly maxBytes = 32 * 1024 * 1024) {}

  get(store: GraphStore, key: string): string | undefined {
    const k = this.key(store, key);
    const text = this.entries.get(k);
    if (text !== undefined) {
      this.entries.delete(k);
      this.entries.set(k, text);
    }
    return text;
  }

  set(store: GraphStore, key: string, text: string): void {
    // An answer over an eighth of the budget would only push the others out.
    if (text.length * 2 > this.maxBytes / 8) return;
    const k = this.key(store, key);
    if (this.entries.has(k)) return;
    this.entries.set(k, text);
    this.bytes += text.length * 2;
    for (const [old, oldText] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(old);
      this.bytes -= oldText.length * 2;
    }
  }

  private key(store: GraphStore, key: string): string {
    let id = this.storeIds.get(store);
    if (id === undefined) this.storeIds.set(store, (id = this.nextId++));
    return `${id}\u0000${key}`;
  }
}
