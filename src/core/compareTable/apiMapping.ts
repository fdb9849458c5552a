import { MappingFileError } from './mappingFileError.js';
import { parseMappingYaml } from './mappingYaml.js';
import type { SideTable } from './sideTable.js';

export { MappingFileError } from './mappingFileError.js';

/**
 * `-am`: MindSpore API names → PyTorch API names (msprobe-compare.md §3.6). The built-in table renames the first
 * two name segments; a user yaml then re-keys chosen APIs argument by argument.
 *
 * Where msprobe and its documentation disagree, the documentation wins: output index lists are read from
 * `ms_outputs`/`pt_outputs` as documented (msprobe reads `ms_output`/`pt_output` and crashes on documented files;
 * that spelling is still accepted), a single mapping (the documented example) is accepted besides a list, and a
 * missing list means "no rows of that kind are mapped" instead of a crash.
 */

/** ms_to_pt_api.yaml: `MindSporeApi: PyTorchApi`. */
export function parseBuiltInApiTable(text: string, file: string): Map<string, string> {
  const v = parseMappingYaml(text, file);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new MappingFileError(file, 'expected a mapping of API names');
  return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]));
}

/** msprobe `process_internal_api_mapping`. */
export function builtInApiName(name: string, table: ReadonlyMap<string, string>): string {
  const parts = name.split('.');
  const api = `${parts[0]}.${parts[1]}`;
  if (parts[0] === 'Mint') return name.replaceAll('Mint', 'Torch');
  if (parts[0] === 'MintFunctional') return name.replaceAll('MintFunctional', 'Functional');
  const mapped = table.get(api);
  return mapped ? name.replaceAll(api, mapped) : name;
}

type ListKind = 'args' | 'outputs' | 'parameters' | 'parameters_grad';

export interface UserApiMapping {
  msApi: string;
  ptApi: string;
  lists: Record<ListKind, { ms: number[]; pt: number[] }>;
}

const LIST_KINDS: ListKind[] = ['args', 'outputs', 'parameters', 'parameters_grad'];
/** msprobe's spelling of the output lists, accepted as well. */
const LIST_ALIASES: Record<string, ListKind> = { output: 'outputs' };
const KNOWN_KEYS = new Set(['ms_api', 'pt_api']);
for (const side of ['ms', 'pt']) for (const k of [...LIST_KINDS, 'output']) KNOWN_KEYS.add(`${side}_${k}`);

const STATE_LIST: Record<string, ListKind> = {
  input: 'args',
  output: 'outputs',
  parameters: 'parameters',
  parameters_grad: 'parameters_grad',
};
const STATE_PATTERN: Record<string, string> = {
  input: '.input.',
  output: '.output.',
  parameters: '.parameters.',
  parameters_grad: '.parameters_grad.',
};

function indexList(v: unknown, file: string, where: string): number[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new MappingFileError(file, `${where} must be a list of indices`);
  const seen = new Set<number>();
  for (const x of v) {
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) throw new MappingFileError(file, `${where}: ${String(x)} is not an index`);
    if (seen.has(x)) throw new MappingFileError(file, `${where}: index ${x} is listed twice`);
    seen.add(x);
  }
  return v as number[];
}

/** Reads and checks a user api_mapping.yaml; warnings (unequal list lengths: entry skipped, as msprobe does). */
export function parseUserApiMapping(text: string, file: string): { entries: UserApiMapping[]; warnings: string[] } {
  const doc = parseMappingYaml(text, file);
  const list = Array.isArray(doc) ? doc : doc && typeof doc === 'object' ? [doc] : null;
  if (!list) throw new MappingFileError(file, 'expected a list of {ms_api, pt_api, ms_args, pt_args, …} mappings');
  const entries: UserApiMapping[] = [];
  const warnings: string[] = [];
  list.forEach((raw, n) => {
    const where = `entry ${n + 1}`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new MappingFileError(file, `${where} is not a mapping`);
    const e = raw as Record<string, unknown>;
    for (const k of Object.keys(e)) if (!KNOWN_KEYS.has(k)) throw new MappingFileError(file, `${where}: unknown key '${k}'`);
    for (const k of ['ms_api', 'pt_api']) {
      if (typeof e[k] !== 'string' || !/^[^.]+\.[^.]+$/.test(e[k] as string)) {
        throw new MappingFileError(file, `${where}: ${k} must be '{api_type}.{api_name}'`);
      }
    }
    const lists = {} as UserApiMapping['lists'];
    for (const kind of LIST_KINDS) lists[kind] = { ms: [], pt: [] };
    for (const [key, value] of Object.entries(e)) {
      const m = /^(ms|pt)_(.+)$/.exec(key);
      if (!m || m[2] === 'api') continue;
      const kind = LIST_ALIASES[m[2]] ?? (m[2] as ListKind);
      lists[kind][m[1] as 'ms' | 'pt'] = indexList(value, file, `${where}: ${key}`);
    }
    const unequal = LIST_KINDS.filter((k) => lists[k].ms.length !== lists[k].pt.length);
    if (unequal.length) {
      warnings.push(`${file}: ${where} (${String(e.ms_api)}): ms_${unequal[0]} and pt_${unequal[0]} differ in length; entry skipped`);
      return;
    }
    entries.push({ msApi: e.ms_api as string, ptApi: e.pt_api as string, lists });
  });
  return { entries, warnings };
}

function apiOf(name: string): string {
  const a = name.indexOf('.');
  const b = name.indexOf('.', a + 1);
  return b < 0 ? name : name.slice(0, b);
}

/** Positional count per (API, state): the largest `.input.N` / `.output.N` index + 1 over all calls. */
function indexCounts(side: SideTable, api: string): Record<ListKind, number> {
  const counts: Record<ListKind, number> = { args: 0, outputs: 0, parameters: 0, parameters_grad: 0 };
  for (let i = 0; i < side.length; i++) {
    const name = side.name(i);
    if (apiOf(name) !== api) continue;
    const state = side.state(i);
    const kind = STATE_LIST[state];
    if (!kind) continue;
    const origin = side.apiKey(i);
    const prefix = origin + STATE_PATTERN[state];
    if (!name.startsWith(prefix)) continue;
    const first = name.slice(prefix.length).split('.')[0];
    if (/^\d+$/.test(first)) counts[kind] = Math.max(counts[kind], Number(first) + 1);
  }
  return counts;
}

/**
 * Applies the user mapping to the compare keys (`keys[i]`, already renamed by the built-in table). Throws when an
 * index points past the arguments/outputs that API has in the dump.
 */
export function applyUserApiMapping(
  entries: UserApiMapping[],
  npu: SideTable,
  bench: SideTable,
  keys: string[],
  file: string,
): void {
  const npuApis = new Set<string>();
  for (let i = 0; i < npu.length; i++) npuApis.add(apiOf(npu.name(i)));
  const benchApis = new Set<string>();
  for (let i = 0; i < bench.length; i++) benchApis.add(apiOf(bench.name(i)));
  for (const entry of entries) {
    if (!npuApis.has(entry.msApi) || !benchApis.has(entry.ptApi)) continue;
    const msCounts = indexCounts(npu, entry.msApi);
    const ptCounts = indexCounts(bench, entry.ptApi);
    for (const kind of LIST_KINDS) {
      const { ms, pt } = entry.lists[kind];
      const badMs = ms.find((x) => x >= msCounts[kind]);
      if (badMs !== undefined) {
        throw new MappingFileError(file, `ms_${kind} index ${badMs} is out of range: ${entry.msApi} has ${msCounts[kind]} in the NPU dump`);
      }
      const badPt = pt.find((x) => x >= ptCounts[kind]);
      if (badPt !== undefined) {
        throw new MappingFileError(file, `pt_${kind} index ${badPt} is out of range: ${entry.ptApi} has ${ptCounts[kind]} in the bench dump`);
      }
    }
    for (let i = 0; i < npu.length; i++) {
      const name = npu.name(i);
      if (apiOf(name) !== entry.msApi) continue;
      const op = name.replace(entry.msApi, entry.ptApi);
      const origin = npu.apiKey(i).replace(entry.msApi, entry.ptApi);
      const state = npu.state(i);
      const pattern = STATE_PATTERN[state];
      const kind = STATE_LIST[state];
      let key = op + 'abandoned';
      if (pattern && kind && op.startsWith(origin + pattern)) {
        const suffix = op.slice(origin.length + pattern.length);
        const { ms, pt } = entry.lists[kind];
        const at = ms.findIndex((x) => String(x) === suffix);
        if (at >= 0) key = op.replaceAll(pattern + ms[at], pattern + pt[at]);
      }
      keys[i] = key;
    }
  }
}
