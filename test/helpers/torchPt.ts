import { zipSync } from 'fflate';

/** torch.save-shaped `.pt` files for tests (the reader is src/core/formats/torchPt.ts). */

/** Minimal protocol-2 pickle writer for torch.save-shaped files. */
export function pickleTensor(opts: { storage: string; size: number[]; stride: number[]; offset?: number; parameter?: boolean; numel: number }): Uint8Array {
  const out: number[] = [0x80, 0x02];
  const ascii = (s: string) => out.push(...Array.from(s, (c) => c.charCodeAt(0)));
  const global = (m: string, n: string) => {
    out.push(0x63);
    ascii(`${m}\n${n}\n`);
  };
  const unicode = (s: string) => {
    out.push(0x58, s.length, 0, 0, 0);
    ascii(s);
  };
  const int = (v: number) => out.push(0x4a, v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff);
  const tuple = (items: number[]) => {
    out.push(0x28);
    items.forEach(int);
    out.push(0x74);
  };
  if (opts.parameter) global('torch._utils', '_rebuild_parameter');
  if (opts.parameter) out.push(0x28);
  global('torch._utils', '_rebuild_tensor_v2');
  out.push(0x28); // MARK args
  out.push(0x28); // MARK persistent id
  unicode('storage');
  global('torch', opts.storage);
  unicode('0');
  unicode('cpu');
  int(opts.numel);
  out.push(0x74, 0x51); // TUPLE, BINPERSID
  int(opts.offset ?? 0);
  tuple(opts.size);
  tuple(opts.stride);
  out.push(0x89); // False
  global('collections', 'OrderedDict');
  out.push(0x29, 0x52); // EMPTY_TUPLE REDUCE
  out.push(0x74, 0x52); // TUPLE REDUCE
  if (opts.parameter) out.push(0x89, 0x74, 0x52);
  out.push(0x2e);
  return Uint8Array.from(out);
}

/** The zip container torch.save writes around a pickle and one storage. */
export function ptBytes(pkl: Uint8Array, storage: Uint8Array, level: 0 | 6 = 0): Uint8Array {
  return zipSync({ 'archive/data.pkl': pkl, 'archive/data/0': storage, 'archive/version': new TextEncoder().encode('3\n') }, { level });
}
