import { parse as parseYaml } from 'yaml';
import { MappingFileError } from './apiMapping.js';

/**
 * `-cm`: MindSpore Cell names → PyTorch Module names (msprobe-compare.md §3.7): `Cell` becomes `Module`, and a yaml
 * `{cell path}.{Class}: {module path}.{Class}` renames the cell part.
 */

export function parseCellMapping(text: string, file: string): Map<string, string> {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new MappingFileError(file, `not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new MappingFileError(file, "expected a mapping '{cell_name}.{class_name}: {module_name}.{class_name}'");
  }
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    if (typeof v !== 'string') throw new MappingFileError(file, `the value of '${k}' is not a module name`);
    out.set(k, v);
  }
  return out;
}

const CUTS = ['.forward.', '.backward.', '.parameters_grad.'];

/** msprobe `process_cell_mapping` for one NPU name; `N/A` (never matched) for names that are not cell tensors. */
export function cellMappedName(name: string, mapping: ReadonlyMap<string, string> | null): string {
  if (!name) return 'N/A';
  if (!name.split('.').includes('parameters_grad') && !name.includes('.forward.') && !name.includes('.backward.')) return 'N/A';
  let out = name.replace('Cell', 'Module');
  if (mapping) {
    let cell = out.slice(out.indexOf('.') + 1);
    const at = Math.min(...CUTS.map((cut) => cell.indexOf(cut)).filter((x) => x >= 0));
    if (Number.isFinite(at)) cell = cell.slice(0, at);
    const target = mapping.get(cell);
    if (target !== undefined) out = out.replace(cell, target);
  }
  return out;
}
