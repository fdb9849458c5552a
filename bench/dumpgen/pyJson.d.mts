// Types for pyJson.mjs.

export function pyFloatRepr(x: number): string;
export function pyStringRepr(s: string): string;
export function writePyJson(file: string, value: unknown, resolve?: (v: object) => unknown): void;
export class PyJsonFileWriter {
  constructor(file: string, resolve?: (v: object) => unknown);
  value(value: unknown, depth?: number): void;
  document(entries: Array<[string, unknown]>, lazyKeys?: Set<string>): void;
  close(): void;
}
