/**
 * zlib's `crc32_combine`: the CRC-32 of A‖B from crc(A), crc(B) and |B|, so segments compressed on different
 * threads can go into one zip entry (Node has crc32 but not its combine). GF(2) matrix powers, as in zlib.
 */

function gf2Times(mat: Uint32Array, vec: number): number {
  let sum = 0;
  for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i];
  return sum >>> 0;
}

function gf2Square(square: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = gf2Times(mat, mat[n]);
}

export function crc32Combine(crc1: number, crc2: number, len2: number): number {
  if (len2 <= 0) return crc1 >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320;
  let row = 1;
  for (let n = 1; n < 32; n++) {
    odd[n] = row;
    row <<= 1;
  }
  gf2Square(even, odd);
  gf2Square(odd, even);
  let c1 = crc1 >>> 0;
  let len = len2;
  do {
    gf2Square(even, odd);
    if (len % 2) c1 = gf2Times(even, c1);
    len = Math.floor(len / 2);
    if (len === 0) break;
    gf2Square(odd, even);
    if (len % 2) c1 = gf2Times(odd, c1);
    len = Math.floor(len / 2);
  } while (len !== 0);
  return (c1 ^ crc2) >>> 0;
}
