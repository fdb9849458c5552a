// The generator's own PRNG, so that a seed gives the same dump on every machine and Node version (Math.random cannot
// be seeded). sfc32 seeded through splitmix32: fast, 32-bit, good enough for synthetic statistics.

/**
 * Mixes any number of integers / strings into one 32-bit seed.
 * @param {...(number | string)} parts
 */
export function hashSeed(...parts) {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const s = String(part);
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0xff; // separator, so ("1","23") ≠ ("12","3")
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** @param {number} seed */
function splitmix32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class Rng {
  /** @param {number} seed */
  constructor(seed) {
    const next = splitmix32(seed);
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    /** @type {number | null} */
    this.spare = null;
  }

  /** Uniform 32-bit unsigned integer. */
  u32() {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  next() {
    return this.u32() / 4294967296;
  }

  /** @param {number} lo @param {number} hi */
  uniform(lo, hi) {
    return lo + (hi - lo) * this.next();
  }

  /** Integer in [0, n). @param {number} n */
  int(n) {
    return Math.floor(this.next() * n);
  }

  /** Standard normal (Box–Muller, both values used). */
  gauss() {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = this.next();
    while (u === 0) u = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    const theta = 2 * Math.PI * this.next();
    this.spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  }
}
