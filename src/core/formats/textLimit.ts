/**
 * The longest string JavaScript can hold (V8: 2^29 − 24 UTF-16 units, about 512 MiB): a JSON file read whole as
 * text cannot be larger. Files are checked against it before they are decoded, so a too-large file gets a message
 * that names it instead of V8's "Cannot create a string longer than …".
 */
export const MAX_TEXT_BYTES = 2 ** 29 - 24;

export function tooLargeForText(bytes: number): string {
  return (
    `The file is ${(bytes / 2 ** 20).toFixed(0)} MiB; JSON files larger than 512 MiB cannot be read whole ` +
    `(JavaScript's longest string). Dump per rank and step to keep each file smaller.`
  );
}

/** Files read whole into one buffer (dump.json from its bytes): Node's largest buffer, 4 GiB. */
export const MAX_BUFFER_BYTES = 2 ** 32;

export function tooLargeForBuffer(bytes: number): string {
  return (
    `The file is ${(bytes / 2 ** 20).toFixed(0)} MiB; files larger than 4 GiB cannot be read whole ` +
    `(Node.js's largest buffer). Dump per rank and step to keep each file smaller.`
  );
}
