import { DumpFileError } from './dumpFileError.js';
import { utf8Decode, type Utf8Decode } from './utf8.js';

/**
 * The longest string JavaScript can hold (V8: 2^29 − 24 UTF-16 units, about 512 MiB): a JSON file read whole as
 * text cannot be larger. Files are checked against it before they are decoded, so a too-large file gets a message
 * that names it instead of V8's "Cannot create a string longer than …".
 */
export const MAX_TEXT_BYTES = 2 ** 29 - 24;

export function tooLargeForText(bytes: number): string {
  return tooLarge(bytes, 'JSON files larger than 512 MiB', "JavaScript's longest string");
}

/** Files read whole into one buffer (dump.json from its bytes): Node's largest buffer, 4 GiB. */
export const MAX_BUFFER_BYTES = 2 ** 32;

export function tooLargeForBuffer(bytes: number): string {
  return tooLarge(bytes, 'files larger than 4 GiB', "Node.js's largest buffer");
}

function tooLarge(bytes: number, which: string, limit: string): string {
  return (
    `The file is ${(bytes / 2 ** 20).toFixed(0)} MiB; ${which} cannot be read whole (${limit}). ` +
    'Dump per rank and step to keep each file smaller.'
  );
}

/** The whole text of a file's bytes, or a DumpFileError naming the file when they are too many for one string. */
export function textOfBytes(bytes: Uint8Array, file: string, decode: Utf8Decode = utf8Decode): string {
  if (bytes.length > MAX_TEXT_BYTES) throw new DumpFileError(file, tooLargeForText(bytes.length));
  return decode(bytes, 0, bytes.length);
}
