import fs from 'node:fs';
import path from 'node:path';
import { buildLayerMapping } from '../../src/core/compare/layerMapping.js';
import {
  MappingFileError,
  parseBuiltInApiTable,
  parseUserApiMapping,
} from '../../src/core/compareTable/apiMapping.js';
import { parseCellMapping } from '../../src/core/compareTable/cellMapping.js';
import { parseDataMapping, type KeyMappings } from '../../src/core/compareTable/compareKeys.js';
import { expandLayerMapping, unmappedDataMapping } from '../../src/core/compareTable/layerDataMapping.js';
import { parsePyJson, type PyValue } from '../../src/core/formats/pyJson.js';
import { packageRoot } from '../cli/packagePaths.js';
import { requireRegularFile } from './regularFile.js';

/** Loads the mapping files of `-am/-cm/-dm/-lm` into the form the core matcher takes. */

export interface MappingFlags {
  apiMapping?: string | true;
  cellMapping?: string | true;
  dataMapping?: string;
  layerMapping?: string | true;
}

function readText(file: string): string {
  requireRegularFile(file, (f, p) => new MappingFileError(f, p));
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new MappingFileError(file, code === 'ENOENT' ? 'mapping file not found' : `cannot be read (${code ?? e})`);
  }
}

let builtIn: Map<string, string> | null = null;

/** The shipped MindSpore → PyTorch API table (399 pairs), read once. */
export function builtInApiTable(): Map<string, string> {
  if (!builtIn) {
    const file = path.join(packageRoot() ?? process.cwd(), 'src/core/compareTable/data/ms_to_pt_api.yaml');
    builtIn = parseBuiltInApiTable(readText(file), file);
  }
  return builtIn;
}

/** -am / -cm / -dm (not -lm, which needs both dumps: see layerDataMapping). Warnings go to `warn`. */
export function loadKeyMappings(flags: MappingFlags, warn: (line: string) => void): Omit<KeyMappings, 'data'> & { dataFile?: string; data?: Map<string, string> } {
  const out: ReturnType<typeof loadKeyMappings> = {};
  if (flags.apiMapping) {
    let user = null;
    const file = typeof flags.apiMapping === 'string' ? path.resolve(flags.apiMapping) : '';
    if (file) {
      const parsed = parseUserApiMapping(readText(file), file);
      parsed.warnings.forEach(warn);
      user = parsed.entries;
    }
    out.api = { table: builtInApiTable(), user, file };
  }
  if (flags.cellMapping) {
    const file = typeof flags.cellMapping === 'string' ? path.resolve(flags.cellMapping) : null;
    out.cell = { mapping: file ? parseCellMapping(readText(file), file) : null };
  }
  if (flags.dataMapping) {
    const file = path.resolve(flags.dataMapping);
    out.data = parseDataMapping(readText(file), file);
    out.dataFile = file;
  }
  return out;
}

function readJsonIfExists(file: string): PyValue | null {
  if (!fs.existsSync(file)) return null;
  return parsePyJson(fs.readFileSync(file, 'utf8'), { mode: 'python', file }) as PyValue;
}

/**
 * `-lm`: the tensor-level data mapping derived from both dumps' construct.json and stack.json. Returns the
 * mapping and msprobe's warning when the yaml could not be applied.
 */
export function layerDataMapping(
  npuJson: string,
  benchJson: string,
  yamlFile: string | null,
): { mapping: Map<string, string>; warning: string | null } {
  const yamlText = yamlFile ? readText(path.resolve(yamlFile)) : null;
  const side = (json: string) => {
    const dir = path.dirname(json);
    const dump = readJsonIfExists(json)!;
    const stack = readJsonIfExists(path.join(dir, 'stack.json'));
    const construct = readJsonIfExists(path.join(dir, 'construct.json'));
    if ((stack === null) !== (construct === null)) {
      const missing = stack === null ? 'stack.json' : 'construct.json';
      throw new MappingFileError(path.join(dir, missing), `-lm needs ${missing} next to ${path.basename(json)}`);
    }
    const data = dump instanceof Map && dump.get('data') instanceof Map ? (dump.get('data') as Map<string, PyValue>) : new Map();
    return { json, dump, stack, construct, data };
  };
  const npu = side(npuJson);
  const bench = side(benchJson);
  if (!npu.stack || !bench.stack) return { mapping: unmappedDataMapping(npu.data, npuJson), warning: null };
  const api = buildLayerMapping(
    { dump: npu.dump, construct: npu.construct!, stack: npu.stack, file: npuJson },
    { dump: bench.dump, construct: bench.construct!, stack: bench.stack, file: benchJson },
    yamlText,
  );
  return {
    mapping: expandLayerMapping(api.mapping, npu.data, bench.data, { npu: npuJson, bench: benchJson }),
    warning: api.warning,
  };
}
