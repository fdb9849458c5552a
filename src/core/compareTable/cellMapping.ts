import { parseNameMapping } from './nameMappingYaml.js';

/**
 * `-cm`: MindSpore Cell names → PyTorch Module names (msprobe-compare.md §3.7): `Cell` becomes `Module`, and a yaml
 * `{cell path}.{Class}: {module path}.{Class}` renames the cell part.
 */

export function parseCellMapping(text: string, file: string): Map<string, string> {
  return parseNameMapping(text, file, '{cell_name}.{class_name}: {module_name}.{class_name}', 'module name');
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
