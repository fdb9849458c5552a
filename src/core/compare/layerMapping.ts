import { parse as parseYaml } from 'yaml';
import { parsePyJson, type PyValue } from '../formats/pyJson.js';
import { dumpDataItems, LayerMappingError, type DumpDataItem } from './layerScope.js';
import { detectFramework } from './mode.js';

/**
 * `-lm` layer mapping (msprobe-format.md §3.2 c; msprobe `core/compare/layer_mapping/layer_mapping.py`):
 * both sides' dump entries go into a trie keyed by scope segments; an NPU entry is mapped by walking its scope
 * through the NPU trie while rewriting segments with the YAML rules `{ClassOfCurrentNode: {npu_path: bench_path}}`,
 * then taking the entry with the same state and ordinal in the Bench trie.
 */

export interface LayerMappingSide {
  /** dump.json (python-mode parse). */
  dump: PyValue;
  /** construct.json as parsed ({} when absent). */
  construct: PyValue;
  /** stack.json as parsed, old or new format ({} when absent). */
  stack: PyValue;
  /** dump.json path, for messages. */
  file: string;
  /** dump.json text, for msprobe's framework sniffing when the `framework` key is missing. */
  rawDumpText?: string;
}

/**
 * A side from the three files' text, parsed the way msprobe's layer mapping reads them (raw: a new-format
 * stack.json is not expanded, so API scopes then carry no stack part). Missing files: pass '{}'.
 */
export function layerMappingSide(dumpFile: string, texts: { dump: string; construct: string; stack: string }): LayerMappingSide {
  const parse = (text: string, file: string) => parsePyJson(text, { mode: 'python', file }) as PyValue;
  const dir = dumpFile.slice(0, dumpFile.lastIndexOf('/') + 1);
  return {
    dump: parse(texts.dump, dumpFile),
    construct: parse(texts.construct, `${dir}construct.json`),
    stack: parse(texts.stack, `${dir}stack.json`),
    file: dumpFile,
    rawDumpText: texts.dump,
  };
}

export interface LayerMappingResult {
  /** NPU dump name → Bench dump name, or "N/A" when there is no counterpart. */
  mapping: Map<string, string>;
  /** msprobe's warning when the mapping could not be built (the mapping is then empty). */
  warning: string | null;
}

export const LAYER_MAPPING_FAILED =
  'The layer mapping file parsing failed, please check file format, mapping is not effective.';

class LayerTrie {
  readonly dataItems = new Map<string, DumpDataItem[]>();
  readonly children = new Map<string, LayerTrie>();
  constructor(public typeName: string) {}

  insert(item: DumpDataItem): void {
    let node: LayerTrie = this;
    for (const name of item.fullScope.split('.').slice(1)) {
      let child = node.children.get(name);
      if (!child) {
        child = new LayerTrie(name);
        node.children.set(name, child);
      }
      node = child;
    }
    const list = node.dataItems.get(item.state) ?? [];
    list.push(item);
    node.dataItems.set(item.state, list);
    node.typeName = item.typeName;
  }

  query(scope: string, state: string, index: number): DumpDataItem | null {
    let node: LayerTrie = this;
    for (const name of scope.split('.').slice(1)) {
      const child = node.children.get(name);
      if (!child) return null;
      node = child;
    }
    const list = node.dataItems.get(state) ?? [];
    if (index >= list.length) return null;
    const item = list[index < 0 ? list.length + index : index];
    if (!item) throw new LayerMappingError('index out of range');
    return item;
  }
}

/** typeName → first segment of the rule key → rules (longest first): [origin, target, segment count]. */
type Rules = Map<string, Map<string, Array<[string, string, number]>>>;

function preprocessRules(yamlValue: unknown): Rules {
  const rules: Rules = new Map();
  if (yamlValue === null || yamlValue === undefined) throw new LayerMappingError('empty layer mapping yaml');
  if (typeof yamlValue !== 'object' || Array.isArray(yamlValue)) throw new LayerMappingError('yaml is not a mapping');
  const entries = Object.entries(yamlValue as Record<string, unknown>);
  // Older files used `Cell` as the top-level key; it replaces `TopLayer` (and moves to the end, like dict.pop + set).
  const cellIndex = entries.findIndex(([k]) => k === 'Cell');
  if (cellIndex >= 0) {
    const [, cell] = entries.splice(cellIndex, 1)[0];
    if (cell !== null && cell !== undefined) {
      const top = entries.findIndex(([k]) => k === 'TopLayer');
      if (top >= 0) entries[top] = ['TopLayer', cell];
      else entries.push(['TopLayer', cell]);
    }
  }
  for (const [typeName, nameMap] of entries) {
    if (nameMap === null || typeof nameMap !== 'object' || Array.isArray(nameMap)) {
      throw new LayerMappingError(`rules of ${typeName} are not a mapping`);
    }
    const byPrefix = new Map<string, Array<[string, string, number]>>();
    for (const [key, value] of Object.entries(nameMap as Record<string, unknown>)) {
      if (typeof value !== 'string') throw new LayerMappingError(`rule ${key} of ${typeName} is not a string`);
      const segments = key.split('.');
      const list = byPrefix.get(segments[0]) ?? [];
      list.push([key, value, segments.length]);
      byPrefix.set(segments[0], list);
    }
    // Stable sort by rule length, longest first (Python list.sort is stable too).
    for (const list of byPrefix.values()) list.sort((a, b) => b[2] - a[2]);
    rules.set(typeName, byPrefix);
  }
  return rules;
}

function convertScope(trie: LayerTrie, item: DumpDataItem, rules: Rules): [string, string, number] {
  let newScope = 'TopLayer';
  const scope = item.fullScope.split('.');
  let node: LayerTrie | undefined = trie;
  let idx = 0;
  while (idx < scope.length - 1) {
    if (!node) throw new LayerMappingError(`scope ${item.fullScope} left the trie`);
    const childName = scope[idx + 1];
    const candidates = [...(rules.get(node.typeName)?.get(childName) ?? []), [childName, childName, 1] as [string, string, number]];
    let step = 1;
    for (const [origin, target, level] of candidates) {
      if (scope.slice(idx + 1, idx + level + 1).join('.') === origin) {
        newScope = `${newScope}.${target}`;
        step = level;
        break;
      }
    }
    for (let s = 0; s < step; s++) {
      node = node?.children.get(scope[idx + 1]);
      idx++;
    }
  }
  if (!node) throw new LayerMappingError(`scope ${item.fullScope} left the trie`);
  let index = -1;
  (node.dataItems.get(item.state) ?? []).forEach((candidate, i) => {
    if (candidate.dataName === item.dataName) index = i;
  });
  return [newScope, item.state, index];
}

function buildTrie(items: DumpDataItem[]): LayerTrie {
  const root = new LayerTrie('TopLayer');
  for (const item of items) root.insert(item);
  return root;
}

/**
 * Builds the NPU → Bench dump-name map. `yamlText` null = `-lm` without a file (scope matching only).
 * Never throws: like msprobe, any problem yields an empty map and the warning.
 */
export function buildLayerMapping(
  npu: LayerMappingSide,
  bench: LayerMappingSide,
  yamlText: string | null,
): LayerMappingResult {
  try {
    const npuItems = dumpDataItems(npu.dump, npu.construct, npu.stack, detectFramework(npu.dump, npu.file, npu.rawDumpText));
    const benchItems = dumpDataItems(
      bench.dump,
      bench.construct,
      bench.stack,
      detectFramework(bench.dump, bench.file, bench.rawDumpText),
    );
    const npuTrie = buildTrie(npuItems);
    const benchTrie = buildTrie(benchItems);
    const rules = preprocessRules(yamlText === null ? {} : parseYaml(yamlText, { uniqueKeys: false }));
    const mapping = new Map<string, string>();
    for (const item of npuItems) {
      const [scope, state, index] = convertScope(npuTrie, item, rules);
      const benchItem = benchTrie.query(scope, state, index);
      mapping.set(item.dataName, benchItem ? benchItem.dataName : 'N/A');
    }
    return { mapping, warning: null };
  } catch {
    return { mapping: new Map(), warning: LAYER_MAPPING_FAILED };
  }
}
