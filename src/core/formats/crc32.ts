/**
 * zlib's CRC-32 of UTF-8 bytes. msprobe fills a missing `md5` with `format(zlib.crc32(str(value).encode()), "08x")`
 * (msprobe-format.md §2.5), which md5-mode comparisons then compare.
 */
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

const encoder = new TextEncoder();

export function crc32Hex(text: string): string {
  if (text === '') return '00000000';
  const bytes = encoder.encode(text);
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ((c ^ 0xffffffff) >>> 0).toString(16).padStart(8, '0');
}
