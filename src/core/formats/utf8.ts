/**
 * UTF-8 bytes ⇄ text for the readers that work on a file's bytes (dump.json, stack.json). A file's text is never
 * needed whole on their common paths: each piece is decoded when it is read. A BOM is kept (`ignoreBOM`), as
 * Node's `Buffer.toString` keeps it, so the strict parsers see and reject it as Python's json does.
 */

/** The text of bytes[start, end); invalid sequences become U+FFFD, as in `Buffer.toString`. */
export type Utf8Decode = (bytes: Uint8Array, start: number, end: number) => string;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();

/** The portable `Utf8Decode` (Node callers may pass a faster one for their Buffers). */
export const utf8Decode: Utf8Decode = (bytes, start, end) => decoder.decode(bytes.subarray(start, end));

export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}
