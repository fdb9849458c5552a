import type { PyValue } from '../formats/pyJson.js';
import { allocate, ByteArena, grow, trimmed } from './byteArena.js';
import { PREFIXED } from './nameColumn.js';
import type { OpRow } from './opRows.js';
import {
  FLOAT,
  INT,
  MD5_HEX,
  MD5_NONE,
  MD5_OTHER,
  OTHER,
  RG_FALSE,
  RG_NONE,
  RG_OTHER,
  RG_TRUE,
  SideTable,
  STATES,
  type Typed,
} from './sideTable.js';
import { numericOf } from './statCells.js';

/** Appends rows API by API into a SideTable; `finish()` trims the buffers and returns the table. */

const STATE_CODE = new Map(STATES.map((s, i) => [s, i]));
const HEX8 = /^[0-9a-f]{8}$/;

export class SideTableBuilder {
  private rows = 0;
  private readonly names: ByteArena;
  private readonly dataNames: ByteArena;
  private readonly apis: ByteArena;
  private md5Code: Uint32Array;
  private md5Kind: Uint8Array;
  private readonly md5Other = new Map<number, string>();
  private state: Uint8Array;
  private api: Int32Array;
  private dtype: Uint16Array;
  private shape: Uint32Array;
  private stats: Float64Array;
  private statKind: Uint8Array;
  private rg: Uint8Array;
  private readonly others: PyValue[] = [];
  private readonly otherIndex = new Map<string, number>();
  private overrideAt = new Int32Array(1024);
  private overrideValue = new Float64Array(1024);
  private overrides = 0;
  private readonly otherRg = new Map<number, string>();
  private readonly p2p = new Map<number, [PyValue, PyValue]>();
  private readonly dtypeIndex = new Map<string, number>();
  private readonly shapeIndex = new Map<string, number>();
  private readonly dtypes: string[] = [];
  private readonly shapes: string[] = [];
  private lastApi = -1;
  private lastApiKey = '';

  /** `shared`: columns live in SharedArrayBuffers from the start (see finish). */
  constructor(
    expectedRows = 1024,
    private readonly shared = false,
  ) {
    const n = Math.max(16, expectedRows);
    this.names = new ByteArena(n, n * 12, shared);
    this.dataNames = new ByteArena(n, 16, shared);
    this.apis = new ByteArena(Math.ceil(n / 3), Math.ceil(n / 3) * 32, shared);
    this.md5Code = allocate(Uint32Array, n, shared);
    this.md5Kind = allocate(Uint8Array, n, shared);
    this.state = allocate(Uint8Array, n, shared);
    this.api = allocate(Int32Array, n, shared);
    this.dtype = allocate(Uint16Array, n, shared);
    this.shape = allocate(Uint32Array, n, shared);
    this.stats = allocate(Float64Array, n * 4, shared);
    this.statKind = allocate(Uint8Array, n * 4, shared);
    this.rg = allocate(Uint8Array, n, shared);
  }

  get length(): number {
    return this.rows;
  }

  /** Registers an API key (also for entries without rows, so indices follow dump order); returns its index. */
  addApi(key: string): number {
    this.lastApiKey = key;
    this.lastApi = this.apis.push(key);
    return this.lastApi;
  }

  addRow(apiIndex: number, row: OpRow): void {
    const i = this.rows;
    if (i >= this.state.length) this.growColumns(i + 1);
    const key = apiIndex === this.lastApi ? this.lastApiKey : this.apis.get(apiIndex);
    const prefixed = row.name.startsWith(key);
    this.names.push(prefixed ? row.name.slice(key.length) : row.name);
    this.dataNames.push(row.dataName === '-1' ? '' : row.dataName);
    const md5 = row.md5;
    if (md5 === null) this.md5Kind[i] = MD5_NONE;
    else if (HEX8.test(md5)) {
      this.md5Kind[i] = MD5_HEX;
      this.md5Code[i] = parseInt(md5, 16);
    } else {
      this.md5Kind[i] = MD5_OTHER;
      this.md5Other.set(i, md5);
    }
    this.state[i] = (STATE_CODE.get(row.state) ?? 0) | (prefixed ? PREFIXED : 0);
    this.api[i] = apiIndex;
    this.dtype[i] = intern(row.dtype, this.dtypeIndex, this.dtypes);
    this.shape[i] = intern(row.shape, this.shapeIndex, this.shapes);
    for (let k = 0; k < 4; k++) this.setStat(i * 4 + k, row.stats[k]);
    const rg = row.requiresGrad;
    if (rg === null) this.rg[i] = RG_NONE;
    else if (rg === 'True') this.rg[i] = RG_TRUE;
    else if (rg === 'False') this.rg[i] = RG_FALSE;
    else {
      this.rg[i] = RG_OTHER;
      this.otherRg.set(i, detach(rg));
    }
    if (row.p2pOp !== null || row.p2pPeer !== null) this.p2p.set(i, [row.p2pOp, row.p2pPeer]);
    this.rows++;
  }

  private setStat(at: number, v: PyValue): void {
    if (typeof v === 'number') {
      this.statKind[at] = FLOAT;
      this.stats[at] = v;
      const p = numericOf(v)!;
      if (p !== v && !(p !== p && v !== v)) this.addOverride(at, p);
    } else if (typeof v === 'bigint' && v >= -(2n ** 53n) && v <= 2n ** 53n) {
      this.statKind[at] = INT;
      this.stats[at] = Number(v);
      // Up to 15 digits pandas reads an int exactly.
      if (v >= 10n ** 15n || v <= -(10n ** 15n)) {
        const p = numericOf(v)!;
        if (p !== this.stats[at]) this.addOverride(at, p);
      }
    } else {
      this.statKind[at] = OTHER;
      this.stats[at] = this.otherId(v);
    }
  }

  /** Index of `v` in `others`; strings repeat ("None", "True", "...") and are kept once, detached. */
  private otherId(v: PyValue): number {
    if (typeof v === 'string') {
      let id = this.otherIndex.get(v);
      if (id === undefined) {
        id = this.others.length;
        const own = detach(v);
        this.others.push(own);
        this.otherIndex.set(own, id);
      }
      return id;
    }
    this.others.push(v);
    return this.others.length - 1;
  }

  private addOverride(at: number, value: number): void {
    if (this.overrides === this.overrideAt.length) {
      this.overrideAt = grow(this.overrideAt, this.overrides + 1);
      this.overrideValue = grow(this.overrideValue, this.overrides + 1);
    }
    this.overrideAt[this.overrides] = at;
    this.overrideValue[this.overrides] = value;
    this.overrides++;
  }

  private growColumns(min: number): void {
    this.md5Code = grow(this.md5Code, min);
    this.md5Kind = grow(this.md5Kind, min);
    this.state = grow(this.state, min);
    this.api = grow(this.api, min);
    this.dtype = grow(this.dtype, min);
    this.shape = grow(this.shape, min);
    this.rg = grow(this.rg, min);
    this.stats = grow(this.stats, this.state.length * 4);
    this.statKind = grow(this.statKind, this.state.length * 4);
  }

  /**
   * Trims the buffers and returns the table. A shared builder keeps its (SharedArrayBuffer) columns as views when
   * the row estimate was close, so a worker's table reaches other threads without a single copy.
   */
  finish(): SideTable {
    const n = this.rows;
    const shared = this.shared;
    const cut = <T extends Typed>(a: T, length: number): T => trimmed(a, length, shared);
    for (const arena of [this.names, this.dataNames, this.apis]) arena.trim(shared);
    const columns = this as unknown as Record<string, Typed>;
    // Each growing buffer is dropped as soon as its trimmed copy exists.
    const take = <T extends Typed>(key: string, length: number): T => {
      const out = cut(columns[key], length);
      columns[key] = new Uint8Array(0);
      return out as T;
    };
    return new SideTable({
      rows: n,
      names: this.names,
      dataNames: this.dataNames,
      apis: this.apis,
      md5Code: take<Uint32Array>('md5Code', n),
      md5Kind: take<Uint8Array>('md5Kind', n),
      md5Other: this.md5Other,
      state: take<Uint8Array>('state', n),
      api: take<Int32Array>('api', n),
      dtype: take<Uint16Array>('dtype', n),
      shape: take<Uint32Array>('shape', n),
      stats: take<Float64Array>('stats', n * 4),
      statKind: take<Uint8Array>('statKind', n * 4),
      rg: take<Uint8Array>('rg', n),
      others: this.others,
      overrideAt: cut(this.overrideAt, this.overrides),
      overrideValue: cut(this.overrideValue, this.overrides),
      otherRg: this.otherRg,
      p2p: this.p2p,
      dtypes: this.dtypes,
      shapes: this.shapes,
    });
  }
}

function intern(s: string, index: Map<string, number>, list: string[]): number {
  let at = index.get(s);
  if (at === undefined) {
    at = list.length;
    const own = detach(s);
    list.push(own);
    index.set(own, at);
  }
  return at;
}

/**
 * A copy of `s` that shares no storage with the text it was cut from: V8 keeps substrings as views of their
 * parent, and a kept view of one dump entry would keep that whole entry's text alive.
 */
export function detach(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}
