/**
 * Random `.vis` texts that stress the streamed index: unicode ids written raw or as \u escapes (surrogate pairs
 * included), quotes and backslashes in ids, NaN / Infinity tokens, numbers and strings where ints are expected,
 * repeated keys, dangling and repeated subnodes, cycles, unreachable nodes chained by upnode, a deep module chain,
 * deeply nested input items, long strings that cross any chunk boundary, and an optional BOM.
 */

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GenOptions {
  seed: number;
  nodes: number;
  compare: boolean;
  deepChain?: number;
  pretty?: boolean;
  bom?: boolean;
}

type R = () => number;
const pick = <T>(r: R, list: T[]): T => list[Math.floor(r() * list.length)];

/** A JSON string literal, each character written raw or escaped at random (always valid JSON). */
function str(r: R, s: string, asciiOnly = r() < 0.5): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += r() < 0.5 ? '\\n' : '\\u000a';
    else if (ch === '/' && r() < 0.3) out += '\\/';
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (code > 0x7e && (asciiOnly || r() < 0.3)) {
      for (let k = 0; k < ch.length; k++) out += `\\u${ch.charCodeAt(k).toString(16).padStart(4, '0')}`;
    } else if (code < 0x7f && r() < 0.02) out += `\\u${code.toString(16).padStart(4, '0').toUpperCase()}`;
    else out += ch;
  }
  return `${out}"`;
}

function obj(members: string[], pretty: boolean, level: number): string {
  if (members.length === 0) return '{}';
  if (!pretty) return `{${members.join(', ')}}`;
  const pad = ' '.repeat(4 * (level + 1));
  return `{\n${members.map((m) => pad + m).join(',\n')}\n${' '.repeat(4 * level)}}`;
}

function arr(items: string[], pretty: boolean, level: number): string {
  if (items.length === 0) return '[]';
  if (!pretty) return `[${items.join(', ')}]`;
  const pad = ' '.repeat(4 * (level + 1));
  return `[\n${items.map((m) => pad + m).join(',\n')}\n${' '.repeat(4 * level)}]`;
}

const NAMES = ['Module.layer', '模块.层', 'Tensor.__add__', '😀.emoji', 'a"quoted', 'back\\slash', 'Ünïcödé', 'Apis_Between_Modules'];

function numberToken(r: R): string {
  return pick(r, ['NaN', 'Infinity', '-Infinity', '0', '1', '0.25', '1e-3', '-0.5', '2.5E+2', '"0.75"', '" "', 'null', 'true']);
}

function nested(r: R, depth: number): string {
  let s = `"leaf ${depth}"`;
  for (let d = 0; d < depth; d++) s = r() < 0.5 ? `[${s}, ${numberToken(r)}]` : `{"k${d}": ${s}}`;
  return s;
}

function sideText(r: R, o: GenOptions, level: number): string {
  const pretty = o.pretty ?? false;
  const ids: string[] = ['DefaultModel'];
  for (let i = 1; i < o.nodes; i++) ids.push(i % 7 === 0 ? `${i}` : `${pick(r, NAMES)}.${i}.forward`);
  // Integer-like ids must stay reachable (see the repeated id below).
  ids.push('__proto__');
  const parent = ids.map((_, i) => (i === 0 ? -1 : Math.floor(r() * i)));
  const chainStart = ids.length;
  for (let d = 0; d < (o.deepChain ?? 0); d++) {
    ids.push(`Deep.${d}`);
    parent.push(d === 0 ? 0 : ids.length - 2);
  }
  // Unreachable nodes: listed by nobody, chained to each other (and to a cycle) by upnode only.
  const orphanStart = ids.length;
  for (let k = 0; k < 5; k++) {
    ids.push(`Orphan.${k}`);
    parent.push(-2);
  }
  const children = ids.map(() => [] as string[]);
  ids.forEach((_, i) => parent[i] >= 0 && children[parent[i]].push(ids[i]));

  const members: string[] = [];
  const L = level + 2;
  ids.forEach((id, i) => {
    const fields: string[] = [];
    const push = (k: string, v: string) => fields.push(`${str(r, k, true)}: ${v}`);
    push('id', str(r, id));
    push('node_type', pick(r, ['0', '1', '9', '"1"', 'true', '1.5']));
    const items = Array.from({ length: Math.floor(r() * 3) }, (_, k) =>
      `${str(r, `${id}.input.${k}`)}: ${obj(
        [`"Max": ${str(r, String(r()))}`, `"Mean": ${numberToken(r)}`, `"text": ${str(r, 'x'.repeat(Math.floor(r() * 3000)) + '\n"é"\\')}`],
        pretty,
        L + 2,
      )}`,
    );
    if (i % 17 === 3) items.push(`"deep": ${nested(r, 150)}`);
    push('input_data', obj(items, pretty, L + 1));
    push('output_data', r() < 0.3 ? '{"out": "bare value"}' : '{}');
    const up = parent[i] >= 0 ? ids[parent[i]] : i >= orphanStart ? pick(r, [ids[0], ids[orphanStart + ((i + 1 - orphanStart) % 5)], 'missing']) : 'None';
    push('upnode', str(r, up));
    const subs = children[i].map((c) => str(r, c));
    if (r() < 0.2) subs.push(str(r, 'dangling.id'));
    if (r() < 0.2 && subs.length > 0) subs.push(subs[0]);
    if (r() < 0.05) subs.push('7', 'null', str(r, ids[0]));
    if (r() < 0.1) push('subnodes', '"not a list"');
    push('subnodes', arr(subs, pretty, L + 1));
    const link = r() < 0.3 ? [] : [...new Set([ids[0], id])].map((s) => str(r, r() < 0.2 ? `N___${s}` : s));
    if (r() < 0.1) link.push('3');
    push('matched_node_link', r() < 0.05 ? '"not a list"' : arr(link, pretty, L + 1));
    push('stack_info', arr([str(r, 'File "x.py", line 1, in f\n  y = z')], pretty, L + 1));
    if (parent[i] === 0 || r() < 0.1) push('micro_step_id', pick(r, ['0', '1', '2', '"1"', '1.5', 'null']));
    const data: string[] = [];
    if (r() < 0.8) data.push(`"precision_index": ${numberToken(r)}`);
    if (r() < 0.3) data.push(`"overflow_level": ${pick(r, ['"medium"', '"high"', '"critical"', '"odd level"', '3'])}`);
    push('data', r() < 0.05 ? '[]' : obj(data, pretty, L + 1));
    if (r() < 0.05) push('data', obj([`"precision_index": 0.5`], pretty, L + 1));
    if (i >= chainStart && r() < 0.5) push('parallel_merge_info', arr([str(r, 'merged')], pretty, L + 1));
    members.push(`${str(r, id)}: ${obj(fields, pretty, L)}`);
  });
  // A repeated id (the later copy wins) and values that are not nodes. The repeated id is a string leaf: JS objects
  // list integer-like keys first, an order only the whole-file reader has, and unreachable nodes show in key order.
  const leaf = ids.findIndex((id, i) => i > 0 && children[i].length === 0 && !/^\d+$/.test(id) && i < orphanStart);
  members.push(`${str(r, ids[leaf])}: ${obj([`"id": "dup"`, `"node_type": 1`, `"subnodes": []`], pretty, L)}`);
  members.push(`"ghost": 5`, `"ghost2": ${obj([], pretty, L)}`, `"ghost2": null`);
  return obj(
    [`"root": ${str(r, 'DefaultModel')}`, `"dump_data_dir": null`, `"node": ${obj(members, pretty, level + 1)}`, `"extra": ${nested(r, 20)}`],
    pretty,
    level,
  );
}

export function generateVisText(o: GenOptions): string {
  const r = rng(o.seed);
  const pretty = o.pretty ?? false;
  const meta = [
    `"ToolTip": ${str(r, JSON.stringify({ 'Max diff': '最大值的差值', shape: 'ß' }))}`,
    `"Colors": ${obj([`"#ffeDBE": {"value": [0.2, 0.4], "description": ${str(r, '说明 "x"')}}`, `"#C7C7C7": {"value": [], "description": "none"}`, `"bad": 1`], pretty, 1)}`,
    `"MicroSteps": ${pick(r, ['1', '3', '"2"'])}`,
    `"task": ${pick(r, ['"summary"', '"md5"', '"bogus"'])}`,
    `"OverflowCheck": ${pick(r, ['true', 'false'])}`,
    `"unrelated": ${nested(r, 30)}`,
  ];
  const top = o.compare
    ? obj([`"NPU": ${sideText(r, o, 1)}`, `"Bench": ${sideText(r, o, 1)}`, ...meta], pretty, 0)
    : (() => {
        const side = sideText(r, o, 0);
        return `${side.slice(0, -1)}, ${meta.join(', ')}}`;
      })();
  return (o.bom ? '\ufeff' : '') + top + (pretty ? '\n' : '');
}
