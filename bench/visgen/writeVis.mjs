// Streams a JSON `.vis` exactly as msprobe's `json.dumps(obj, indent=4)` lays it out (msprobe-format.md §4.3): one
// key per line, 4-space steps, ASCII-escaped strings, bare NaN. Text is flushed in ~8 MiB writes, so a file of several
// GB never sits in memory.
import { closeSync, openSync, writeSync } from 'node:fs';
import { COLORS, NodeContent, pyFloat, pyStr, TOOL_TIP } from './content.mjs';

const FLUSH_CHARS = 8 * 1024 * 1024;
const pad = (/** @type {number} */ level) => ' '.repeat(4 * level);
const P = Array.from({ length: 8 }, (_, i) => pad(i));

class TextSink {
  /** @param {string} file */
  constructor(file) {
    this.fd = openSync(file, 'w');
    /** @type {string[]} */
    this.parts = [];
    this.chars = 0;
  }
  /** @param {string} s */
  put(s) {
    this.parts.push(s);
    this.chars += s.length;
    if (this.chars >= FLUSH_CHARS) this.flush();
  }
  flush() {
    if (this.parts.length > 0) writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.chars = 0;
  }
  close() {
    this.flush();
    closeSync(this.fd);
  }
}

/** `[...]` of strings at `level` (the opening bracket is already on the key's line). @param {string[]} list */
function strList(list, level) {
  if (list.length === 0) return '[]';
  return `[\n${list.map((s) => P[level + 1] + pyStr(s)).join(',\n')}\n${P[level]}]`;
}

/** @param {Array<[string, string]>} pairs */
function itemText(pairs, level) {
  return `{\n${pairs.map(([k, v]) => `${P[level + 1]}${pyStr(k)}: ${pyStr(v)}`).join(',\n')}\n${P[level]}}`;
}

/** @param {Array<[string, Array<[string, string]>]>} items */
function itemsText(items, level) {
  if (items.length === 0) return '{}';
  return `{\n${items.map(([k, pairs]) => `${P[level + 1]}${pyStr(k)}: ${itemText(pairs, level + 1)}`).join(',\n')}\n${P[level]}}`;
}

/**
 * The side object's members (`root`, `dump_data_dir`, `node`) at `base` indentation, without the closing newline.
 * @param {import('./tree.mjs').Tree} tree
 * @param {NodeContent} content
 * @param {{ side: 'NPU' | 'Bench', compare: boolean, base: number, microOf: (node: number) => number | null, npuMatched: Uint8Array }} o
 *   `npuMatched`: filled by the NPU side, read by the Bench side (written after it)
 * @param {TextSink} sink
 */
function writeSide(tree, content, o, sink) {
  const npuCompare = o.compare && o.side === 'NPU';
  const b = o.base;
  const L = b + 2;
  sink.put(`${P[b]}"root": ${pyStr(tree.ids[0])},\n${P[b]}"dump_data_dir": null,\n${P[b]}"node": {\n`);
  const n = tree.size;
  for (let i = 0; i < n; i++) {
    const id = tree.ids[i];
    const leaf = tree.childCount[i] === 0;
    const precision = npuCompare && i > 0 ? content.precision() : null;
    // The Bench side links the nodes the NPU side matched (msprobe-format.md §3.2: one list on both sides).
    const matched = !o.compare || i === 0 || (npuCompare ? precision !== null : o.npuMatched[i] === 1);
    if (npuCompare && matched) o.npuMatched[i] = 1;
    /** @type {Array<[string, Array<[string, string]>]>} */
    const inputs = i === 0 ? [] : [[`${id}.input.0`, content.item(npuCompare)]];
    if (leaf && i > 0) inputs.push([`${id}.input.1`, content.item(npuCompare)]);
    /** @type {Array<[string, Array<[string, string]>]>} */
    const outputs = i === 0 ? [] : [[`${id}.output.0`, content.item(npuCompare)]];
    const micro = o.microOf(i);
    let text =
      `${P[b + 1]}${pyStr(id)}: {\n` +
      `${P[L]}"id": ${pyStr(id)},\n` +
      `${P[L]}"node_type": ${tree.type[i]},\n` +
      `${P[L]}"output_data": ${itemsText(outputs, L)},\n` +
      `${P[L]}"input_data": ${itemsText(inputs, L)},\n` +
      `${P[L]}"upnode": ${i === 0 ? '"None"' : pyStr(tree.ids[tree.parent[i]])},\n` +
      `${P[L]}"subnodes": ${strList(tree.children(i).map((c) => tree.ids[c]), L)},\n` +
      `${P[L]}"matched_node_link": ${strList(o.compare && matched ? [...tree.pathOf(i), id] : [], L)},\n` +
      `${P[L]}"suggestions": {},\n` +
      `${P[L]}"stack_info": ${strList(leaf && i > 0 ? content.stack() : [], L)},\n`;
    if (micro !== null) text += `${P[L]}"micro_step_id": ${micro},\n`;
    text +=
      precision === null
        ? `${P[L]}"data": {}\n`
        : `${P[L]}"data": {\n${P[L + 1]}"precision_index": ${pyFloat(precision)}\n${P[L]}}\n`;
    text += i === n - 1 ? `${P[b + 1]}}\n` : `${P[b + 1]}},\n`;
    sink.put(text);
  }
  sink.put(`${P[b]}}`);
}

/**
 * @param {string} file
 * @param {import('./tree.mjs').Tree} tree
 * @param {{ compare: boolean, seed: number, microSteps: number, microOf: (node: number) => number | null }} o
 */
export function writeVisFile(file, tree, o) {
  const sink = new TextSink(file);
  try {
    const content = new NodeContent(o.seed);
    const microOf = o.microOf;
    const npuMatched = new Uint8Array(tree.size);
    if (o.compare) {
      sink.put(`{\n${P[1]}"NPU": {\n`);
      writeSide(tree, content, { side: 'NPU', compare: true, base: 2, microOf, npuMatched }, sink);
      sink.put(`\n${P[1]}},\n${P[1]}"Bench": {\n`);
      writeSide(tree, content, { side: 'Bench', compare: true, base: 2, microOf, npuMatched }, sink);
      sink.put(`\n${P[1]}},\n${P[1]}"ToolTip": ${TOOL_TIP},\n${P[1]}"Colors": {\n`);
      sink.put(
        COLORS.map(
          ([color, value, description]) =>
            `${P[2]}"${color}": {\n${P[3]}"value": ${
              value.length === 0 ? '[]' : `[\n${/** @type {number[]} */ (value).map((v) => P[4] + v).join(',\n')}\n${P[3]}]`
            },\n${P[3]}"description": ${pyStr(String(description))}\n${P[2]}}`,
        ).join(',\n'),
      );
      sink.put(`\n${P[1]}},\n${P[1]}"MicroSteps": ${o.microSteps},\n${P[1]}"task": "summary",\n`);
    } else {
      // A build file is the graph object itself: root / dump_data_dir / node at the top level.
      sink.put('{\n');
      writeSide(tree, content, { side: 'NPU', compare: false, base: 1, microOf, npuMatched }, sink);
      sink.put(`,\n${P[1]}"MicroSteps": ${o.microSteps},\n`);
    }
    sink.put(`${P[1]}"OverflowCheck": false\n}`);
  } finally {
    sink.close();
  }
}
