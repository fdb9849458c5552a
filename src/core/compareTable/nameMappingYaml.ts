import { MappingFileError } from './mappingFileError.js';
import { parseMappingYaml } from './mappingYaml.js';

/**
 * A flat `name: name` yaml (`-cm` cell → module names, `-dm` NPU → bench tensor names) as a map; anything else is a
 * MappingFileError naming the file. `shape` says what the file should hold, `valueKind` what each value names.
 */
export function parseNameMapping(text: string, file: string, shape: string, valueKind: string): Map<string, string> {
  const doc = parseMappingYaml(text, file);
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new MappingFileError(file, `expected a mapping '${shape}'`);
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    if (typeof v !== 'string') throw new MappingFileError(file, `the value of '${k}' is not a ${valueKind}`);
    out.set(k, v);
  }
  return out;
}
