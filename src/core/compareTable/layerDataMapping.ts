import type { PyValue } from '../formats/pyJson.js';
import { opRows } from './opRows.js';

/**
 * `-lm` for the table (msprobe-compare.md §3.8 step 6): the API-level layer mapping (core/compare/layerMapping.ts,
 * shared with `graph -lm`) expanded to tensors by pairing each NPU row with the bench row that has the same suffix
 * after its API key (`.input.0` ↔ `.input.0`); the result is a data mapping, also saved as yaml.
 */

function suffixes(apiKey: string, entry: PyValue | undefined, file: string): Array<[suffix: string, name: string]> {
  if (entry === undefined) return [];
  return opRows(apiKey, entry, file).map((r) => [r.name.startsWith(apiKey) ? r.name.slice(apiKey.length) : r.name, r.name]);
}

export function expandLayerMapping(
  apiMapping: ReadonlyMap<string, string>,
  npuData: ReadonlyMap<string, PyValue>,
  benchData: ReadonlyMap<string, PyValue>,
  files: { npu: string; bench: string },
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [npuApi, benchApi] of apiMapping) {
    const bench = new Map(benchApi === 'N/A' ? [] : suffixes(benchApi, benchData.get(benchApi), files.bench));
    for (const [suffix, name] of suffixes(npuApi, npuData.get(npuApi), files.npu)) out.set(name, bench.get(suffix) ?? 'N/A');
  }
  return out;
}

/** Every NPU row mapped to nothing: `-lm` when a side has neither stack.json nor construct.json. */
export function unmappedDataMapping(npuData: ReadonlyMap<string, PyValue>, file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [api, entry] of npuData) for (const r of opRows(api, entry, file)) out.set(r.name, 'N/A');
  return out;
}

/** The data_mapping yaml msprobe saves (`yaml.dump` of a flat dict: one `key: value` line each). */
export function dataMappingYaml(mapping: ReadonlyMap<string, string>): string {
  let out = '';
  for (const [k, v] of mapping) out += `${yamlScalar(k)}: ${yamlScalar(v)}\n`;
  return out;
}

function yamlScalar(s: string): string {
  return /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/.test(s) ? s : JSON.stringify(s);
}
