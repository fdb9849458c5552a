import { parseJsonFast } from '../../../src/core/formats/pyJson.js';
import { isObject, type RawNode } from '../visJson/visDocument.js';

const utf8 = new TextDecoder('utf-8');

/**
 * A node record the index located and found far below every cap, for batch reads of its items (parseJsonFast: the
 * native parser where it gives parsePyJson's answer).
 */
export function readRecord(bytes: Uint8Array): RawNode {
  const record = parseJsonFast(utf8.decode(bytes));
  return isObject(record) ? (record as RawNode) : {};
}
