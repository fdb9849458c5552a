import type { PyValue } from '../formats/pyJson.js';

/**
 * One flattened input/output/parameter item (msprobe-format.md §2.5) before export formatting: the dump
 * descriptor's keys in file order, the keys parsing adds (`data_name`, `full_op_name`, `state`, …), then the compare
 * columns. Values keep Python semantics (bigint = int, number = float) until export formatting (§4.1).
 *
 * Code reads and writes items through this Map-like interface, so a plain `Map<string, PyValue>` is an item too
 * (tests build them that way). The build makes `Item`s: a run holds hundreds of thousands of items with the same
 * dozen keys, and a Map each costs about four times the memory and allocation.
 */
export interface RawItem extends Iterable<[string, PyValue]> {
  get(key: string): PyValue | undefined;
  set(key: string, value: PyValue): this;
  has(key: string): boolean;
  readonly size: number;
  entries(): IterableIterator<[string, PyValue]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<PyValue>;
}

/**
 * The key sequence of an item, shared by every item with the same keys in the same order (V8's hidden classes,
 * by hand): an item is its shape plus an array of values. Shapes form a tree of "add key k" transitions.
 */
export class ItemShape {
  readonly index = new Map<string, number>();
  private readonly next = new Map<string, ItemShape>();
  /** Where `type` and `shape` are (-1: absent): matching reads them for every item pair. */
  readonly typeAt: number;
  readonly shapeAt: number;

  constructor(readonly keys: readonly string[]) {
    for (let i = 0; i < keys.length; i++) this.index.set(keys[i], i);
    this.typeAt = this.index.get('type') ?? -1;
    this.shapeAt = this.index.get('shape') ?? -1;
  }

  /** This shape plus `keys` at the end (cached by the identity of `keys`: pass a constant list). */
  withAll(keys: readonly string[]): ItemShape {
    let known = this.nextAll?.get(keys);
    if (known) return known;
    known = this;
    for (const k of keys) known = known.with(k);
    if (known.keys.length !== this.keys.length + keys.length) return known;
    (this.nextAll ??= new Map()).set(keys, known);
    return known;
  }

  private nextAll?: Map<readonly string[], ItemShape>;

  /** This shape plus `key` at the end (cached while the tree is small, so shapes are shared). */
  with(key: string): ItemShape {
    // Items come in runs of one shape: the transition taken last is nearly always the one asked for.
    if (key === this.lastKey) return this.lastNext!;
    let shape = this.next.get(key);
    if (!shape) {
      shape = new ItemShape([...this.keys, key]);
      // Items with unusual keys would grow the tree without bound in a long-lived process; those stay unshared.
      if (shapeCount < MAX_SHARED_SHAPES) {
        this.next.set(key, shape);
        shapeCount++;
      }
    }
    this.lastKey = key;
    this.lastNext = shape;
    return shape;
  }

  private lastKey: string | null = null;
  private lastNext: ItemShape | null = null;
}

const MAX_SHARED_SHAPES = 20_000;
let shapeCount = 0;

export const EMPTY_SHAPE = new ItemShape([]);

export class Item implements RawItem {
  /** Values in `shape.keys` order. */
  vals: PyValue[];

  constructor(
    public shape: ItemShape = EMPTY_SHAPE,
    vals?: PyValue[],
  ) {
    this.vals = vals ?? [];
  }

  get size(): number {
    return this.shape.keys.length;
  }

  get(key: string): PyValue | undefined {
    const i = this.shape.index.get(key);
    return i === undefined ? undefined : this.vals[i];
  }

  has(key: string): boolean {
    return this.shape.index.has(key);
  }

  set(key: string, value: PyValue): this {
    const i = this.shape.index.get(key);
    if (i !== undefined) this.vals[i] = value;
    else {
      this.shape = this.shape.with(key);
      this.vals.push(value);
    }
    return this;
  }

  /** `set` of each key in turn; one step when none of them is there yet (compare columns: a constant list). */
  setAll(keys: readonly string[], values: readonly PyValue[]): this {
    const index = this.shape.index;
    for (let i = 0; i < keys.length; i++) {
      if (index.has(keys[i])) {
        for (let j = 0; j < keys.length; j++) this.set(keys[j], values[j]);
        return this;
      }
    }
    const shape = this.shape.withAll(keys);
    if (shape.keys.length !== this.vals.length + keys.length) {
      // a repeated key in `keys`: one at a time
      for (let j = 0; j < keys.length; j++) this.set(keys[j], values[j]);
      return this;
    }
    this.shape = shape;
    // Items made with room for these (ItemBuilder.room) take them in place; others grow once.
    for (let j = 0; j < values.length; j++) this.vals.push(values[j]);
    return this;
  }


  *entries(): IterableIterator<[string, PyValue]> {
    const keys = this.shape.keys;
    for (let i = 0; i < keys.length; i++) yield [keys[i], this.vals[i]];
  }

  keys(): IterableIterator<string> {
    return this.shape.keys[Symbol.iterator]();
  }

  *values(): IterableIterator<PyValue> {
    for (let i = 0; i < this.shape.keys.length; i++) yield this.vals[i];
  }

  [Symbol.iterator](): IterableIterator<[string, PyValue]> {
    return this.entries();
  }
}

/**
 * Makes `Item`s with exactly sized value arrays: keys are added (`add` for a key known to be new, `set` otherwise)
 * into reused scratch space, and `build` copies the values out once. One builder serves one item at a time.
 */
export class ItemBuilder {
  private shape = EMPTY_SHAPE;
  private readonly vals: PyValue[] = Array.from({ length: 32 }, () => null);
  private n = 0;
  /**
   * Values the items made will get later (NPU items of a comparison: the compare columns), room for which is left
   * in each value array: adding them then needs no second array per item.
   */
  room = 0;

  reset(): this {
    this.shape = EMPTY_SHAPE;
    this.n = 0;
    return this;
  }

  /** A key not added yet. */
  add(key: string, value: PyValue): void {
    this.shape = this.shape.with(key);
    if (this.n < this.vals.length) this.vals[this.n++] = value;
    else {
      this.vals.push(value);
      this.n++;
    }
  }

  get(key: string): PyValue | undefined {
    const i = this.shape.index.get(key);
    return i === undefined ? undefined : this.vals[i];
  }

  has(key: string): boolean {
    return this.shape.index.has(key);
  }

  set(key: string, value: PyValue): void {
    const i = this.shape.index.get(key);
    if (i === undefined) this.add(key, value);
    else this.vals[i] = value;
  }

  /** No key was added twice (`add` is for new keys; a reader that cannot tell beforehand checks here). */
  keysDistinct(): boolean {
    return this.shape.index.size === this.shape.keys.length;
  }

  build(): Item {
    let vals: PyValue[];
    if (this.room) {
      // A copy this long, cut back to its values: V8 keeps the rest as free room (under half of it, nothing trims).
      vals = this.vals.slice(0, this.n + this.room);
      vals.length = this.n;
    } else vals = this.vals.slice(0, this.n);
    const item = new Item(this.shape, vals);
    this.vals.fill(null, 0, this.n);
    this.n = 0;
    return item;
  }
}
