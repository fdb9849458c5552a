/** A repeatable pseudo-random sequence in [0, 1) (a linear congruential generator): tests' random inputs are the same on every run. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}
